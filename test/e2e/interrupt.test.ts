/**
 * Ctrl-C during `pull` or `init` (the built CLI). The command stops writing between
 * files, leaves no temp file in the folder, says in one line what was done and how to resume,
 * exits 130; the resume command finishes the job.
 */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

/** A design large enough that a pull is still writing when the signal arrives. */
function bigDesign(): { editorId: string; files: Record<string, string> } {
  const files: Record<string, string> = {};
  for (let i = 0; i < 4000; i++) files[`pages/p${Math.floor(i / 100)}/f${i}.tsx`] = `export const f${i} = ${JSON.stringify("x".repeat(200))};\n`;
  return { editorId: seedDesign(world, files).editorId, files };
}

/** Every file under `dir` (relative), .mpsync/ left out. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .filter((p) => !p.startsWith(".mpsync"));
}

/** Runs `mpsync ...args`, sends SIGINT once a design file is on disk under `folder`, resolves the outcome. */
async function interruptWhenWriting(args: string[], folder: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: world.cwd, env: world.env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let signalled = false;
  void (async () => {
    while (child.exitCode === null) {
      if ((await listFiles(folder)).some((p) => p.endsWith(".tsx"))) {
        child.kill("SIGINT");
        signalled = true;
        return;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const code = await exited;
  expect(signalled, `the command ended before it wrote a file: ${stderr}`).toBe(true);
  return { code, stderr };
}

// Each test runs the CLI on a big design two or three times: at a load of 15+ on two cores that
// took more than 30 s.
describe("Ctrl-C", { timeout: 120_000 }, () => {
  it("during pull: one line with what was done and how to resume, exit 130, no temp file; `mpsync pull` finishes", async () => {
    const { editorId, files } = bigDesign();
    await world.writeSyncrc({ designs: [{ dir: "web", design: editorId }] });
    const folder = join(world.cwd, "web");
    const { code, stderr } = await interruptWhenWriting(["pull"], folder);
    expect(code).toBe(130);
    const lines = stderr
      .trim()
      .split("\n")
      .filter((l) => l.includes("interrupted"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^! interrupted: pull stopped in web( after [\d,]+ of [\d,]+ files)?; what was written is kept .*; run "mpsync pull" to finish$/);
    expect((await listFiles(folder)).filter((p) => p.includes(".mpsync.tmp"))).toEqual([]);
    const again = await world.run(["pull"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("[");
    expect((await listFiles(folder)).length).toBe(Object.keys(files).length);
    expect(await readFile(join(folder, "pages/p39/f3999.tsx"), "utf8")).toBe(files["pages/p39/f3999.tsx"]);
  });

  it("during init: the line says the folder is mapped but not fully pulled, and how to finish or undo", async () => {
    const { editorId, files } = bigDesign();
    const folder = join(world.cwd, "web");
    const { code, stderr } = await interruptWhenWriting(["init", "web", "--design", editorId], folder);
    expect(code).toBe(130);
    expect(stderr).toMatch(
      new RegExp(
        `! interrupted: web is mapped to ${editorId} in \\.syncrc, but its pull stopped in web.*; run "mpsync pull web" to finish \\(or remove the mapping from \\.syncrc to undo\\)`,
      ),
    );
    expect((await listFiles(folder)).filter((p) => p.includes(".mpsync.tmp"))).toEqual([]);
    expect(await readFile(join(world.cwd, ".syncrc"), "utf8")).toContain(editorId);
    const again = await world.run(["pull", "web"]);
    expect(again.code, again.stderr).toBe(0);
    expect((await listFiles(folder)).length).toBe(Object.keys(files).length);
  });
});
