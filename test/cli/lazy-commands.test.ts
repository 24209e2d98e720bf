/**
 * Issue 13: `mpsync --help` must not run the engine or its heavy dependencies, and the command
 * table of src/cli/program.ts (what the help lists without loading a module) must say what each
 * command's module really registers. The CLI is one bundle (scripts/bundle-cli.mjs) in which
 * every module reached by `import()` runs on first use, as a function named after the module's
 * source file: V8's coverage of a run says which modules ran.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Command, Help } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, type ExitHolder } from "../../src/cli/program.js";
import type { CliIo } from "../../src/cli/context.js";

const REPO = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const DIST = join(REPO, "dist");

/** Source files the bundle holds, from its metafile. */
const INPUTS = JSON.parse(readFileSync(join(DIST, "cli.inputs.json"), "utf8")) as string[];

/** Files of this repository a command may load: the entry, its two helpers, the bundle. */
const ENTRY_FILES = ["bin.js", "core/code-cache.js", "core/heap.js", "cli.cjs"].map((f) => pathToFileURL(join(DIST, f)).href);

interface CoverageFunction {
  functionName: string;
  ranges: { count: number }[];
}

/** Runs the built CLI under V8's coverage; resolves exit code, stdout and the source files that ran. */
function traced(args: string[]): Promise<{ code: number | null; stdout: string; loaded: string[] }> {
  const coverage = mkdtempSync(join(tmpdir(), "mpsync-coverage-"));
  return new Promise<{ code: number | null; stdout: string; loaded: string[] }>((done, fail) => {
    const child = spawn(process.execPath, [join(DIST, "bin.js"), ...args], { env: { ...process.env, NO_COLOR: "1", NODE_V8_COVERAGE: coverage, MPSYNC_CODE_CACHE: "0" } });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.on("error", fail);
    child.on("close", (code) => {
      const scripts = readdirSync(coverage).flatMap((f) => (JSON.parse(readFileSync(join(coverage, f), "utf8")) as { result: { url: string; functions: CoverageFunction[] }[] }).result);
      const ours = scripts.filter((s) => s.url.startsWith(pathToFileURL(REPO).href));
      const outside = ours.map((s) => s.url).filter((u) => !ENTRY_FILES.includes(u));
      if (outside.length > 0) return fail(new Error(`loaded outside the bundle: ${outside.join(", ")}`));
      const bundle = ours.find((s) => s.url === ENTRY_FILES[3]);
      if (bundle === undefined) return fail(new Error("the bundle did not run"));
      // A module not wrapped in its own function runs when the bundle loads.
      const wrapped = new Map(bundle.functions.filter((f) => INPUTS.includes(f.functionName)).map((f) => [f.functionName, (f.ranges[0]?.count ?? 0) > 0]));
      done({ code, stdout, loaded: INPUTS.filter((f) => wrapped.get(f) !== false) });
    });
  }).finally(() => rmSync(coverage, { recursive: true, force: true }));
}

const HEAVY = ["src/api/undici-lean.ts", "node_modules/zod/", "node_modules/pino/", "node_modules/chokidar/", "src/runtime.ts", "src/sync/", "src/cli/commands/"];

describe("lazy command loading", () => {
  it("--help lists every command but loads no command module and no heavy dependency", async () => {
    const r = await traced(["--help"]);
    expect(r.code).toBe(0);
    for (const entry of COMMANDS) expect(r.stdout).toContain(`  ${entry.name}`);
    expect(r.loaded).toContain("src/cli/program.ts");
    expect(r.loaded.filter((f) => HEAVY.some((h) => f.startsWith(h)))).toEqual([]);
  });

  it("a command's own help loads its module, and not the other commands' modules", async () => {
    const r = await traced(["restore", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: mpsync restore [options] <path>");
    const commandModules = r.loaded.filter((f) => f.startsWith("src/cli/commands/"));
    expect(commandModules).toContain("src/cli/commands/restore.ts");
    expect(commandModules.filter((f) => !/restore|status-report/.test(f))).toEqual([]);
  });

  it("the table says what each module registers (name, usage, description)", async () => {
    const io = {} as CliIo;
    const exit: ExitHolder = { code: 0 };
    const help = new Help();
    for (const entry of COMMANDS) {
      const program = new Command("mpsync");
      (await entry.load())(program, io, exit);
      const command = program.commands.find((c) => c.name() === entry.name);
      expect(command, entry.name).toBeDefined();
      expect(command?.description()).toBe(entry.description);
      expect(help.subcommandTerm(command as Command)).toBe(`${entry.name}${entry.usage === "" ? "" : ` ${entry.usage}`}`);
    }
  });

  it("help <command> shows the real command's help", async () => {
    const r = await traced(["help", "pull"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: mpsync pull [options] [dir...]");
    expect(r.stdout).toContain("--dry-run");
  });
});
