/**
 * Start-up is paid on every command: `mpsync --help` and a command's own help must not run the engine, its heavy
 * dependencies or any command's implementation (every command is declared eagerly in
 * src/cli/declare/; its implementation in src/cli/commands/ is loaded by `import()` when it
 * runs). The CLI is one bundle (scripts/bundle-cli.mjs) in which every module reached by
 * `import()` runs on first use, as a function named after the module's source file: V8's
 * coverage of a run says which modules ran.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import type { CliIo } from "../../src/cli/context.js";
import { WATCH_EVENT_NAMES } from "../../src/cli/help-facts.js";
import { SYNC_EVENT_NAMES } from "../../src/sync/events.js";

const REPO = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const DIST = join(REPO, "dist");

/** Source files the bundle holds, from its metafile. */
const INPUTS = JSON.parse(readFileSync(join(DIST, "cli.inputs.json"), "utf8")) as string[];

/** Files of this repository a command may load: the entry (package.json's `bin`) and the bundle. */
const ENTRY_FILES = ["bin.cjs", "cli.cjs"].map((f) => pathToFileURL(join(DIST, f)).href);

interface CoverageFunction {
  functionName: string;
  ranges: { count: number }[];
}

/** Runs the built CLI under V8's coverage; resolves exit code, stdout and the source files that ran. */
function traced(args: string[]): Promise<{ code: number | null; stdout: string; loaded: string[] }> {
  const coverage = mkdtempSync(join(tmpdir(), "mpsync-coverage-"));
  return new Promise<{ code: number | null; stdout: string; loaded: string[] }>((done, fail) => {
    const child = spawn(process.execPath, [join(DIST, "bin.cjs"), ...args], {
      env: { ...process.env, NO_COLOR: "1", NODE_V8_COVERAGE: coverage, MPSYNC_CODE_CACHE: "0" },
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.on("error", fail);
    child.on("close", (code) => {
      const scripts = readdirSync(coverage).flatMap(
        (f) => (JSON.parse(readFileSync(join(coverage, f), "utf8")) as { result: { url: string; functions: CoverageFunction[] }[] }).result,
      );
      const ours = scripts.filter((s) => s.url.startsWith(pathToFileURL(REPO).href));
      const outside = ours.map((s) => s.url).filter((u) => !ENTRY_FILES.includes(u));
      if (outside.length > 0) return fail(new Error(`loaded outside the bundle: ${outside.join(", ")}`));
      const bundle = ours.find((s) => s.url === ENTRY_FILES[1]);
      if (bundle === undefined) return fail(new Error("the bundle did not run"));
      // A module not wrapped in its own function runs when the bundle loads.
      const wrapped = new Map(bundle.functions.filter((f) => INPUTS.includes(f.functionName)).map((f) => [f.functionName, (f.ranges[0]?.count ?? 0) > 0]));
      done({ code, stdout, loaded: INPUTS.filter((f) => wrapped.get(f) !== false) });
    });
  }).finally(() => rmSync(coverage, { recursive: true, force: true }));
}

const HEAVY = ["node_modules/undici/", "node_modules/zod/", "node_modules/pino/", "node_modules/chokidar/", "src/runtime.ts", "src/sync/", "src/cli/commands/"];

/** Every command the program declares. */
const COMMAND_NAMES = buildProgram({} as CliIo, { code: 0 }).commands.map((c) => c.name());

/** The implementation modules a run loaded. */
const implementations = (loaded: string[]): string[] => loaded.filter((f) => f.startsWith("src/cli/commands/"));

describe("lazy command loading", () => {
  it("--help lists every command but loads no command implementation and no heavy dependency", async () => {
    const r = await traced(["--help"]);
    expect(r.code).toBe(0);
    expect(COMMAND_NAMES.length).toBeGreaterThan(20);
    for (const name of COMMAND_NAMES) expect(r.stdout).toContain(`  ${name}`);
    expect(r.loaded).toContain("src/cli/program.ts");
    expect(r.loaded.filter((f) => HEAVY.some((h) => f.startsWith(h)))).toEqual([]);
  });

  it("a command's own help is declared: it loads no implementation", async () => {
    const r = await traced(["restore", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: mpsync restore [options] <path>");
    expect(r.stdout).toContain("--from <time>");
    expect(r.stdout).toContain("$ mpsync restore web/App.tsx --list");
    expect(r.loaded.filter((f) => HEAVY.some((h) => f.startsWith(h)))).toEqual([]);
  });

  it("help <command> shows the command's help", async () => {
    const r = await traced(["help", "pull"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: mpsync pull [options] [dir...]");
    expect(r.stdout).toContain("--dry-run");
    expect(implementations(r.loaded)).toEqual([]);
  });

  it("a command that runs loads its own implementation and no other command's", async () => {
    const r = await traced(["completion", "bash"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("complete -o filenames -F _mpsync mpsync");
    expect(implementations(r.loaded)).toEqual(["src/cli/commands/completion.ts"]);
  });

  it("the bundle holds zod's English messages and none of its other locales", () => {
    // `import * as z from "zod"` lets the bundler keep only what the code uses; zod's `z`
    // export is one object holding every locale, which kept all of them in every start.
    const locales = INPUTS.filter((f) => f.startsWith("node_modules/zod/v4/locales/"));
    expect(locales).toContain("node_modules/zod/v4/locales/en.js");
    expect(locales.filter((f) => !/\/(en|index)\.js$/.test(f))).toEqual([]);
  });

  it("watch --help names every event watch --json prints", async () => {
    const r = await traced(["watch", "--help"]);
    expect(r.code).toBe(0);
    const listed = /stream of events \(([^)]*)\)/.exec(r.stdout.replace(/\s+/g, " "))?.[1]?.split(", ");
    expect(listed).toEqual([...WATCH_EVENT_NAMES]);
    expect(listed).toContain("notice");
    // The light list the help reads is the events module's, name for name and in order.
    expect([...WATCH_EVENT_NAMES]).toEqual([...SYNC_EVENT_NAMES]);
  });
});
