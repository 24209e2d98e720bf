/**
 * The commander program (Vite's `cli.ts` shape): global flags, then every command declared once,
 * eagerly (names, arguments, options, help: src/cli/declare/), each with an action that loads
 * its implementation (src/cli/commands/) by `import()` only when it runs. So `mpsync --help`
 * and a command's own help cost little more than starting node, a command runs only its own
 * code, and one parse of the command line does it all. Implementations never import this file
 * or a declaration (test/docs/layers.test.ts counts `import()` edges: no cycle).
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { declareWith, type ExitHolder } from "./action.js";
import type { CliIo } from "./context.js";
import { declareDesignCommands } from "./declare/design.js";
import { declareFileCommands } from "./declare/files.js";
import { declareSetupCommands } from "./declare/setup.js";
import { declareSyncCommands } from "./declare/sync.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { helpWidth, wrapHelp } from "./help-wrap.js";

/** Builds the program with every command declared (`exit` receives the exit code of the command that runs). */
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
    // Help (and commander's errors) fit the terminal: src/cli/help-wrap.ts.
    .configureOutput({
      writeOut: (s) => io.stdout.write(wrapHelp(s, helpWidth(io.stdout))),
      writeErr: (s) => io.stderr.write(wrapHelp(s, helpWidth(io.stderr))),
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
    })
    .addHelpText(
      "after",
      `
Examples:
  $ mpsync init my-design --design https://www.magicpatterns.com/c/abc123
      map a folder and pull
  $ mpsync watch
      two-way sync until Ctrl-C
  $ mpsync prompt "make the header sticky" --wait
      ask for a change, then pull it

Exit codes: 0 ok, 1 failure, 2 usage or config error, 3 authentication or access,
4 out of credits, 5 unresolved conflicts remain.`,
    );
  const declare = declareWith(io, exit);
  declareSyncCommands(program, declare);
  declareDesignCommands(program, declare);
  declareFileCommands(program, declare);
  declareSetupCommands(program, declare);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function runCli(io: CliIo): Promise<number> {
  const exit: ExitHolder = { code: EXIT.ok };
  try {
    const program = buildProgram(io, exit);
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
    return reportUnexpected(io, err);
  }
}

async function reportUnexpected(io: CliIo, err: unknown): Promise<number> {
  const [{ Output, shouldUseColor }, { MpsyncError }] = await Promise.all([import("./output.js"), import("../api/errors.js")]);
  const out = new Output({
    json: io.argv.includes("--json"),
    quiet: false,
    verbose: io.argv.includes("--verbose"),
    color: shouldUseColor(io.env, io.stderr.isTTY === true, undefined),
    stdout: io.stdout,
    stderr: io.stderr,
  });
  out.error(err instanceof MpsyncError ? err : new MpsyncError("INTERNAL", `unexpected failure: ${String(err)}`, { cause: err }));
  return exitCodeFor(err);
}

/** The version in package.json (two folders up from dist/cli/ and from src/cli/). */
function packageVersion(): string {
  // dist/cli/program.js (tsc) or dist/cli.cjs (the bundled CLI): the first
  // package.json above that is mpsync's.
  for (const up of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), "utf8")) as { name?: unknown; version?: unknown };
      if (pkg.name === "mpsync" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // Not here: try one level up.
    }
  }
  return "unknown";
}
