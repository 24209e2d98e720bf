/** The commander program: global flags, every command, help with examples. */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { MpsyncError } from "../api/errors.js";
import { contextFor, type CliIo, type CommandContext } from "./context.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { Output, shouldUseColor } from "./output.js";
import { registerSyncCommands } from "./commands/sync-commands.js";
import { registerWatch } from "./commands/watch.js";
import { registerExtraCommands } from "./commands/index.js";

/** Signature of a command action body. */
export type Action<A extends unknown[]> = (ctx: CommandContext, ...args: A) => Promise<number | void>;

/** Holds the exit code an action produced. */
export interface ExitHolder {
  code: number;
}

/** Wraps an action: builds the context, maps errors to one line and an exit code. */
export function action<A extends unknown[]>(io: CliIo, exit: ExitHolder, body: Action<A>) {
  return async (...raw: unknown[]): Promise<void> => {
    const command = raw[raw.length - 1] as Command;
    const ctx = contextFor(io, command);
    try {
      await ctx.runtime.prepare();
      const code = await body(ctx, ...(raw.slice(0, -1) as A));
      exit.code = code ?? EXIT.ok;
    } catch (err) {
      ctx.out.error(err);
      exit.code = exitCodeFor(err);
    } finally {
      await ctx.runtime.close();
    }
  };
}

/** Builds the whole program. */
export function buildProgram(io: CliIo, exit: ExitHolder): Command {
  const program = new Command("mpsync")
    .description("Mirror designs of the Design Generation Service into local folders and keep both sides in sync.")
    .option("-c, --config <path>", "use this .syncrc (default: search upward from the current folder; env MPSYNC_CONFIG)")
    .option("--json", "machine-readable output: one JSON document (watch: JSON Lines events)")
    .option("-v, --verbose", "more detail, stacks on errors")
    .option("-q, --quiet", "only errors")
    .option("--no-color", "no colours (also NO_COLOR)")
    .option("--log-file <path>", "write logs to this file instead of stderr, rotated at 10 MB (5 files kept)")
    .version(packageVersion(), "-V, --version", "print the version of mpsync")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .addHelpText(
      "after",
      `
Examples:
  $ mpsync init my-design --design https://www.magicpatterns.com/c/abc123   map a folder and pull
  $ mpsync watch                                                            two-way sync until Ctrl-C
  $ mpsync prompt "make the header sticky" --wait                           ask for a change, then pull it

Exit codes: 0 ok, 1 failure, 2 usage or config error, 3 authentication or access,
4 out of credits, 5 unresolved conflicts remain.`,
    );
  registerSyncCommands(program, io, exit);
  registerWatch(program, io, exit);
  registerExtraCommands(program, io, exit);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function runCli(io: CliIo): Promise<number> {
  const exit: ExitHolder = { code: EXIT.ok };
  const program = buildProgram(io, exit);
  for (const cmd of program.commands) cmd.exitOverride();
  try {
    if (io.argv.length <= 2) {
      // No command is a usage error (as git and gh do): the help goes to stderr, exit 2.
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(io.argv);
    return exit.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.exitCode === 0) return EXIT.ok;
      return EXIT.usage;
    }
    const out = new Output({ json: io.argv.includes("--json"), quiet: false, verbose: io.argv.includes("--verbose"), color: shouldUseColor(io.env, io.stderr.isTTY === true, undefined), stdout: io.stdout, stderr: io.stderr });
    out.error(err instanceof MpsyncError ? err : new MpsyncError("INTERNAL", `unexpected failure: ${String(err)}`, { cause: err }));
    return exitCodeFor(err);
  }
}

/** The version in package.json (two folders up from dist/cli/ and from src/cli/). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}
