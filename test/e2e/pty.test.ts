/**
 * What a person sees on a real terminal: the built CLI under a pseudo-terminal made
 * by script(1) (util-linux), sized with stty so the live parts draw. A long pull shows a
 * progress bar and a one-line summary, no per-file flood and no raw JSON log line.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { BIN, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
const FILES = 600;

beforeAll(async () => {
  world = await startWorld();
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`src/d${i % 12}/f${i}.ts`] = `export const f${i} = ${i};\n`;
  const { editorId } = seedDesign(world, files);
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
});
afterAll(async () => {
  await world.close();
});

/**
 * Runs `mpsync ...args` in a 120x40 pseudo-terminal; resolves everything the terminal received.
 * `until`: once the screen matches it, the command gets Ctrl-C (SIGINT).
 */
function inTerminal(args: string[], until?: RegExp): Promise<{ code: number | null; screen: string }> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-q", "-e", "-c", `stty cols 120 rows 40; ${quoted}`, "/dev/null"], { cwd: world.cwd, env: { ...world.env, NO_COLOR: "" } });
    let screen = "";
    let interrupted = false;
    child.stdout.on("data", (d: Buffer) => {
      screen += d.toString("utf8");
      if (until !== undefined && !interrupted && until.test(screen)) {
        interrupted = true;
        // script(1) runs the command in its own session: signal the whole group through script.
        child.kill("SIGINT");
      }
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, screen }));
  });
}

describe("on a terminal", () => {
  it("a long pull draws a progress bar, then one summary line; no per-file flood, no JSON", async () => {
    const { code, screen } = await inTerminal(["pull"]);
    expect(code).toBe(0);
    expect(screen).toMatch(/pulling \[[#.]{20}\] [\d,]+\/600 files/);
    expect(screen).toMatch(/pulled 600 files in [\d.]+ s/);
    expect(screen).toContain("... and 590 more");
    const lines = screen.split(/\r?\n/);
    expect(lines.filter((l) => l.includes("src/d")).length).toBeLessThanOrEqual(10);
    expect(lines.some((l) => l.trimStart().startsWith('{"level"'))).toBe(false);
  });

  it("a large push shows what it sends while the PATCH travels, then the totals", async () => {
    for (let i = 0; i < FILES; i++) await writeFile(join(world.cwd, "site", "src", `d${i % 12}`, `f${i}.ts`), `export const f${i} = ${i + 1};\n`);
    const { code, screen } = await inTerminal(["push"]);
    expect(code).toBe(0);
    expect(screen).toContain("pushing 600 changed files");
    expect(screen).toMatch(/pushed 600 files in [\d.]+ s/);
  });

  it("status --watch redraws every mapping in place until Ctrl-C, then exits 0", async () => {
    // Two redraws: the header twice, each after a clear-screen sequence.
    const { code, screen } = await inTerminal(["status", "--watch"], /(Ctrl-C to stop[\s\S]*){2}/);
    expect(screen).toContain("\x1b[H\x1b[2J");
    const plain = stripVTControlCharacters(screen);
    expect(plain).toMatch(/site\s+[a-z0-9]{22}\s/);
    expect(plain).toMatch(/asked the service \d+ s ago, next in \d+ s/);
    expect(code).toBe(0);
  });
});

describe("status --watch, piped", () => {
  it("--json prints one status document per line until SIGINT", async () => {
    const child = spawn(process.execPath, [BIN, "status", "--watch", "--json"], { cwd: world.cwd, env: world.env });
    let out = "";
    const twoLines = new Promise<void>((resolve) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString("utf8");
        if (out.split("\n").filter((l) => l.trim() !== "").length >= 2) resolve();
      });
    });
    await twoLines;
    child.kill("SIGINT");
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    const docs = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { designs: { dir: string; state: string }[] });
    expect(docs.length).toBeGreaterThanOrEqual(2);
    expect(docs[0]?.designs[0]).toMatchObject({ dir: "site", localChanges: [] });
  });
});
