/**
 * The small things people expect from a CLI, on the built CLI: `open`, shell
 * completion, and long lists summarised (a pull of many files, status).
 */
import { spawn, spawnSync } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, KEY, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let editorId: string;
const MANY = 30;

beforeAll(async () => {
  world = await startWorld();
  const files: Record<string, string> = {};
  for (let i = 0; i < MANY; i++) files[`src/f${String(i).padStart(2, "0")}.ts`] = `export const f${i} = ${i};\n`;
  editorId = seedDesign(world, files).editorId;
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
});
afterAll(async () => {
  await world.close();
});

describe("a reader that leaves early (mpsync pull -v | head -1)", () => {
  it("does not cut the pull short, and says nothing about the closed pipe", async () => {
    const other = await startWorld();
    try {
      const files: Record<string, string> = {};
      for (let i = 0; i < 400; i++) files[`src/g${String(i).padStart(3, "0")}.ts`] = `export const g${i} = ${i};\n`;
      const { editorId: id } = seedDesign(other, files);
      await other.writeSyncrc({ designs: [{ dir: "site", design: id }], pollIntervalSec: 0.05 });
      const child = spawn(process.execPath, [BIN, "pull", "-v"], { cwd: other.cwd, env: other.env, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      // The reader takes the first chunk and leaves: later writes hit a closed pipe.
      child.stdout.once("data", () => child.stdout.destroy());
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
      expect(code).toBe(0);
      for (let i = 0; i < 400; i += 57)
        expect(await readFile(join(other.cwd, "site", "src", `g${String(i).padStart(3, "0")}.ts`), "utf8")).toBe(`export const g${i} = ${i};\n`);
      expect(await readFile(join(other.cwd, "site", "src", "g399.ts"), "utf8")).toBe("export const g399 = 399;\n");
    } finally {
      await other.close();
    }
  });
});

describe("a long pull", () => {
  it("lists the first files, then how many more, then the totals; -v lists every file", async () => {
    const r = await world.run(["pull"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("src/f00.ts");
    expect(r.stdout).not.toContain("src/f29.ts");
    expect(r.stdout).toContain(`... and ${MANY - 10} more`);
    expect(r.stdout).toMatch(new RegExp(`pulled ${MANY} files in [\\d.]+ s`));
    for (let i = 0; i < MANY; i++) await writeFile(join(world.cwd, "site", "src", `f${String(i).padStart(2, "0")}.ts`), `export const f${i} = ${i + 1};\n`);
    const verbose = await world.run(["push", "--dry-run", "-v"]);
    expect(verbose.stdout).toContain("src/f29.ts");
    expect(verbose.stdout).not.toContain("more (-v");
  });

  it("status names a few changed files and counts the rest; --json keeps them all", async () => {
    const human = await world.run(["status"]);
    expect(human.stdout).toContain(`local changes (${MANY}): src/f00.ts`);
    expect(human.stdout).toContain(`and ${MANY - 5} more`);
    const doc = world.readJson<{ designs: { localChanges: string[] }[] }>((await world.run(["status", "--json"])).stdout);
    expect(doc.designs[0]?.localChanges).toHaveLength(MANY);
  });
});

describe("mpsync diff", () => {
  it("shows local edits as a unified diff against the last synced version, or the remote; changes nothing", async () => {
    // The long-pull test left every file edited locally (f_i = i + 1) and nothing pushed.
    const r = await world.run(["diff", "site/src/f03.ts"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--- a/src/f03.ts\tlast synced");
    expect(r.stdout).toContain("+++ b/src/f03.ts\tlocal");
    expect(r.stdout).toContain("-export const f3 = 3;");
    expect(r.stdout).toContain("+export const f3 = 4;");
    expect(r.stdout).not.toContain("f04.ts");
    // A mapped folder names all of it.
    const whole = world.readJson<{ files: { path: string }[] }>((await world.run(["diff", "site", "--json"])).stdout);
    expect(whole.files.length).toBe(MANY);
    world.emulator.control.editFile(editorId, "src/f03.ts", "export const f3 = 4;\n");
    const remote = await world.run(["diff", "--remote", "--json"]);
    const doc = world.readJson<{ against: string; files: { path: string }[] }>(remote.stdout);
    expect(doc.against).toBe("remote");
    // f03 now matches the remote; every other edit still differs.
    expect(doc.files.map((f) => f.path)).not.toContain("src/f03.ts");
    expect(doc.files.length).toBe(MANY - 1);
    expect(world.emulator.control.countRequests((e) => e.method === "PATCH")).toBe(0);
  });
});

describe("folder names", () => {
  it("a person reads a folder as a path from where they stand; --json keeps dir as written", async () => {
    const human = await world.run(["--config", "work/.syncrc", "status"], { cwd: world.root });
    expect(human.stdout).toMatch(/^work\/site {2}/m);
    const doc = world.readJson<{ designs: { dir: string }[] }>((await world.run(["--config", "work/.syncrc", "status", "--json"], { cwd: world.root })).stdout);
    expect(doc.designs[0]?.dir).toBe("site");
  });
});

describe("which key", () => {
  it("status names the service and the key it used (MP_API_KEY, or the one stored for that address, and its store), never the key", async () => {
    const address = world.emulator.baseUrl.replace(/\/+$/, "");
    const file = join(world.env["XDG_CONFIG_HOME"] ?? "", "mpsync", "credentials.json");
    expect((await world.run(["status"])).stdout).toContain(`service ${address}, key from MP_API_KEY`);
    expect((await world.run(["login"], { env: { MP_API_KEY: undefined }, input: `${KEY}\n` })).code).toBe(0);
    const stored = await world.run(["status"], { env: { MP_API_KEY: undefined } });
    expect(stored.stdout.split("\n")).toContain(`service ${address}, key for ${address} from ${file}`);
    expect(stored.stdout).not.toContain(KEY);
    expect((await world.run(["logout"], { env: { MP_API_KEY: undefined } })).stdout).toBe(`✓ removed the stored key for ${address} from ${file}\n`);
  });
});

describe("mpsync open", () => {
  it("on the emulator prints the editor address as a placeholder and starts no BROWSER", async () => {
    const placeholder = `${world.emulator.control.getDesign(editorId).editorUrl} (a placeholder: the emulator has no web editor; the design's files are in site)\n`;
    const printed = await world.run(["open", "--print"]);
    expect([printed.code, printed.stdout]).toEqual([0, placeholder]);
    const seen = join(world.cwd, "browser-saw.txt");
    const browser = join(world.cwd, "fake-browser.sh");
    await writeFile(browser, `#!/bin/sh\necho "$1" > "${seen}"\n`);
    await chmod(browser, 0o755);
    const opened = await world.run(["open"], { env: { BROWSER: browser } });
    expect([opened.code, opened.stdout]).toEqual([0, placeholder]);
    expect(await readFile(seen, "utf8").catch(() => "not started")).toBe("not started");
  });

  it("a BROWSER is started with the address (openInBrowser)", async () => {
    const seen = join(world.cwd, "browser-saw-2.txt");
    const browser = join(world.cwd, "fake-browser-2.sh");
    await writeFile(browser, `#!/bin/sh\necho "$1" > "${seen}"\n`);
    await chmod(browser, 0o755);
    const { openInBrowser } = await import("../../src/cli/commands/open.js");
    expect(await openInBrowser("https://www.example.com/c/abc", { PATH: process.env["PATH"], BROWSER: browser })).toBe(true);
    await expect.poll(() => readFile(seen, "utf8").catch(() => ""), { timeout: 5000 }).toBe("https://www.example.com/c/abc\n");
  });

  it("--preview on the emulator points at mpsync dev (exit 1)", async () => {
    const before = await world.run(["open", "--preview", "--print"]);
    expect(before.code).toBe(1);
    expect(before.stderr).toBe(
      "error: site: the emulator publishes no preview (its preview links are placeholders); preview the folder locally: mpsync dev site\n",
    );
  });
});

describe("mpsync completion", () => {
  it("bash: a valid script naming every command and the options of one", async () => {
    const r = await world.run(["completion", "bash"]);
    expect(r.code).toBe(0);
    for (const name of ["pull", "push", "status", "watch", "restore", "open", "completion"]) expect(r.stdout).toContain(name);
    expect(r.stdout).toContain("--dry-run");
    expect(r.stdout).toContain("complete -o filenames -F _mpsync mpsync");
    const check = spawnSync("bash", ["-n"], { input: r.stdout, encoding: "utf8" });
    expect(check.status, check.stderr).toBe(0);
  });

  it("zsh and fish scripts; an unknown shell is a usage error", async () => {
    expect((await world.run(["completion", "zsh"])).stdout).toContain("bashcompinit");
    const fish = await world.run(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c mpsync -n __fish_use_subcommand -a pull");
    expect(fish.stdout).toContain("-l dry-run");
    const bad = await world.run(["completion", "tcsh"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("use one of: bash, zsh, fish");
  });
});
