/**
 * Issue 13: `mpsync --help` must not load the engine or its heavy dependencies, and the command
 * table of src/cli/program.ts (what the help lists without loading a module) must say what each
 * command's module really registers. The CLI is bundled (scripts/bundle-cli.mjs): what a command
 * loads is the source files of the chunks it loads (`dist/chunks/inputs.json`).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Command, Help } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, type ExitHolder } from "../../src/cli/program.js";
import type { CliIo } from "../../src/cli/context.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HOOK = join(REPO, "test", "cli", "module-trace-hook.mjs");

/** Source files of each bundled output file, from the bundle's metafile. */
const INPUTS = JSON.parse(readFileSync(join(REPO, "dist", "chunks", "inputs.json"), "utf8")) as Record<string, string[]>;

/** Runs the built CLI with the trace hook; resolves exit code, stdout and the source files it loaded. */
function traced(args: string[]): Promise<{ code: number | null; stdout: string; loaded: string[] }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", HOOK, join(REPO, "dist", "bin.js"), ...args], { env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", fail);
    child.on("close", (code) => {
      const files = stderr.split("\n").filter((l) => l.startsWith("LOADED ")).map((l) => fileURLToPath(l.slice("LOADED ".length)).slice(REPO.length + 1));
      const unknown = files.filter((f) => INPUTS[f] === undefined);
      if (unknown.length > 0) fail(new Error(`loaded outside the bundle: ${unknown.join(", ")}`));
      else done({ code, stdout, loaded: files.flatMap((f) => INPUTS[f] ?? []) });
    });
  });
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
