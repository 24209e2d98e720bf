/**
 * The commander program: global flags, the command table, help with examples. Each command's
 * module (and what it imports: undici, zod, pino, the engine) loads only when that command
 * runs, so `mpsync --help` costs little more than starting node.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, Help } from "commander";
import type { CliIo, CommandContext } from "./context.js";
import { hasCode, MpsyncError, originOf } from "../core/errors.js";
import { ApiError } from "../api/errors.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";

/** Signature of a command action body. */
export type Action<A extends unknown[]> = (ctx: CommandContext, ...args: A) => Promise<number | void>;

/** Holds the exit code an action produced. */
export interface ExitHolder {
  code: number;
}

/** What a command module exports: adds its command(s) to the program. */
export type RegisterCommands = (program: Command, io: CliIo, exit: ExitHolder) => void;

/** One line of `mpsync --help`, and the module that defines the command. */
export interface CommandEntry {
  name: string;
  /** What the help lists after the name, exactly as commander prints it for the real command. */
  usage: string;
  description: string;
  /** Imports the module that registers this command (with its options, help and action). */
  load: () => Promise<RegisterCommands>;
}

/**
 * Every command, in help order. To add one: write its module (a RegisterCommands function),
 * then add an entry here with a dynamic import of it. test/cli/command-table.test.ts checks
 * that every entry's usage and description match what its module registers.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "pull", usage: "[options] [dir...]", description: "bring remote changes into the mapped folders (local edits are reconciled, never discarded)", load: async () => (await import("./commands/sync-commands.js")).registerSyncCommands },
  { name: "push", usage: "[options] [dir...]", description: "send local changes (the remote is checked first: its edits are reconciled, never overwritten)", load: async () => (await import("./commands/sync-commands.js")).registerSyncCommands },
  { name: "status", usage: "[options] [dir...]", description: "local and remote changes, conflicts, generating or idle, active version, daemon", load: async () => (await import("./commands/status.js")).registerStatus },
  { name: "sync", usage: "[dir...]", description: "pull and push now; with mpsync watch running, the daemon runs a full cycle now and this waits for it", load: async () => (await import("./commands/controls.js")).registerControls },
  { name: "pause", usage: "[dir...]", description: "hold a folder's sync (a running mpsync watch syncs nothing of it) until mpsync resume", load: async () => (await import("./commands/controls.js")).registerControls },
  { name: "resume", usage: "[dir...]", description: "end a pause: the running mpsync watch syncs what changed meanwhile", load: async () => (await import("./commands/controls.js")).registerControls },
  { name: "watch", usage: "[dir...]", description: "two-way sync of every mapping (or the named folders) until Ctrl-C", load: async () => (await import("./commands/watch.js")).registerWatch },
  { name: "dev", usage: "[options] [dir]", description: "watch one mapped folder and serve a live preview of its design on 127.0.0.1 (React, Tailwind v3, hot reload)", load: async () => (await import("./commands/dev.js")).registerDev },
  { name: "init", usage: "[options] [dir]", description: "map a folder to a design in .syncrc (written or extended), then pull the design into it", load: async () => (await import("./commands/init.js")).registerInit },
  { name: "create", usage: "[options]", description: "create a design (blank, from a template, or generated from a prompt) and print its editorId and URLs", load: async () => (await import("./commands/create.js")).registerCreate },
  { name: "prompt", usage: "[options] <text>", description: "send a prompt to the mapped design; with --wait, poll until it is idle and pull the new version", load: async () => (await import("./commands/prompt.js")).registerPrompt },
  { name: "versions", usage: "[options]", description: "version history of the mapped design, newest first (* marks the active version)", load: async () => (await import("./commands/versions.js")).registerVersions },
  { name: "checkout", usage: "[options] <version>", description: "make an older version active again (as a new version cloned from it), then pull it", load: async () => (await import("./commands/checkout.js")).registerCheckout },
  { name: "snapshot", usage: "[options] <name>", description: "save the active version under a name (clones it into a new named version)", load: async () => (await import("./commands/checkout.js")).registerCheckout },
  { name: "history", usage: "", description: "the design's version history in git", load: async () => (await import("./commands/history.js")).registerHistory },
  { name: "publish", usage: "[options] [dir...]", description: "compile the active version of a mapped design (the folder you are in, the named folders, or --all) so the live preview shows it", load: async () => (await import("./commands/publish.js")).registerPublish },
  { name: "diff", usage: "[options] [path...]", description: "show local changes as a diff against the last synced version (or the remote); changes nothing", load: async () => (await import("./commands/diff.js")).registerDiff },
  { name: "open", usage: "[options]", description: "open the mapped design in the web editor (or its published preview) in the browser", load: async () => (await import("./commands/open.js")).registerOpen },
  { name: "restore", usage: "[options] <path>", description: "list every copy mpsync holds of a file (backups, conflict sides, last synced version) and put one back", load: async () => (await import("./commands/restore.js")).registerRestore },
  { name: "resolve", usage: "[options] [path...]", description: "pick one side of a conflict (from .mpsync/conflicts/), write it, and let it be pushed", load: async () => (await import("./commands/resolve.js")).registerResolve },
  { name: "design-systems", usage: "", description: "list the design systems available to your key (for --design-system)", load: async () => (await import("./commands/lookup.js")).registerLookups },
  { name: "resolve-url", usage: "<url>", description: "print the editorId of a design, published or canvas URL", load: async () => (await import("./commands/lookup.js")).registerLookups },
  { name: "login", usage: "[options]", description: "check an API key against the service and store it (mode 0600) for later commands", load: async () => (await import("./commands/auth.js")).registerAuth },
  { name: "logout", usage: "[options]", description: "remove the stored API key", load: async () => (await import("./commands/auth.js")).registerAuth },
  { name: "doctor", usage: "", description: "check the config, the API key (GET /v3/health), the service, the clock and every mapped folder", load: async () => (await import("./commands/doctor.js")).registerDoctor },
  { name: "completion", usage: "<shell>", description: "print a shell completion script (bash, zsh or fish)", load: async () => (await import("./commands/completion.js")).registerCompletion },
  { name: "emulator", usage: "[options]", description: "serve a local emulator of the v3 API (no network, no key needed) until Ctrl-C", load: async () => (await import("./commands/emulator.js")).registerEmulator },
];

/** Wraps an action: builds the context, maps errors to one line and an exit code. */
export function action<A extends unknown[]>(io: CliIo, exit: ExitHolder, body: Action<A>) {
  return async (...raw: unknown[]): Promise<void> => {
    const command = raw[raw.length - 1] as Command;
    // The runtime (pino, undici, zod) loads here, when a command runs, not when help is read.
    const { contextFor } = await import("./context.js");
    const ctx = contextFor(io, command);
    try {
      await ctx.runtime.prepare();
      const code = await body(ctx, ...(raw.slice(0, -1) as A));
      exit.code = code ?? EXIT.ok;
    } catch (err) {
      ctx.out.error(explainRefusedKey(err, ctx));
      exit.code = exitCodeFor(err);
    } finally {
      await ctx.runtime.close();
    }
  };
}

/**
 * A key the service refused (an ApiError, under any ContextError): the same error with a hint
 * saying which key it was (MP_API_KEY, or the one stored for this address), the refusal as its
 * `cause`. A command that sent another key (login) throws a plain MpsyncError with its own
 * words, left alone.
 */
export function explainRefusedKey(err: unknown, ctx: CommandContext): unknown {
  if (!hasCode(err, "UNAUTHORIZED") || !(originOf(err) instanceof ApiError)) return err;
  const key = ctx.runtime.keySource();
  const hint =
    key.source === "env"
      ? "the service refused the key in MP_API_KEY: check it, or unset MP_API_KEY to use the key stored by mpsync login"
      : key.source === "file"
        ? `the service refused the key stored${key.baseUrl === undefined ? "" : ` for ${key.baseUrl}`}: run mpsync login to store a new one`
        : "no API key: set MP_API_KEY or run mpsync login";
  return new MpsyncError(err.code, err.message, { cause: err, hint });
}

/** What the first, outline-only parse found: the command to load, and whether help was asked. */
export interface Chosen {
  entry?: CommandEntry | undefined;
  help?: boolean;
}

/**
 * Builds the program. `register` (a command module's function) defines its commands fully;
 * every other command is a placeholder that only lists itself in the help. With `chosen` (the
 * outline parse), a placeholder that is invoked names itself there so runCli can load its
 * module and parse again.
 */
export function buildProgram(io: CliIo, exit: ExitHolder, register?: RegisterCommands, chosen?: Chosen): Command {
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
  register?.(program, io, exit);
  const placeholders = new Map<Command, CommandEntry>();
  const defined = new Set(program.commands.map((c) => c.name()));
  for (const entry of COMMANDS) {
    if (defined.has(entry.name)) continue;
    // No help option and loose parsing: `mpsync pull --help` must reach the real command.
    const stub = program
      .command(entry.name)
      .description(entry.description)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        if (chosen !== undefined) chosen.entry = entry;
      });
    placeholders.set(stub, entry);
  }
  // commander's `help <command>` would print a placeholder's help: in the outline, `help`
  // only names the command; the second parse runs the real `help` on the real command.
  if (chosen !== undefined) {
    program.helpCommand(false);
    const help = { name: "help", usage: "[command]", description: "display help for command", load: () => Promise.resolve(() => undefined) };
    const stub = program
      .command(help.name)
      .argument("[command]")
      .description(help.description)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action((name?: string) => {
        chosen.help = true;
        chosen.entry = COMMANDS.find((e) => e.name === name);
      });
    placeholders.set(stub, help);
  }
  const listed = new Help();
  program.configureHelp({
    subcommandTerm: (cmd) => {
      const entry = placeholders.get(cmd);
      return entry === undefined ? listed.subcommandTerm(cmd) : `${entry.name}${entry.usage === "" ? "" : ` ${entry.usage}`}`;
    },
  });
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** The program with every command fully defined (loads every command module: for tests and docs). */
export async function buildFullProgram(io: CliIo, exit: ExitHolder): Promise<Command> {
  const registers = [...new Set(await Promise.all(COMMANDS.map((e) => e.load())))];
  return buildProgram(io, exit, (program, ...rest) => {
    for (const register of registers) register(program, ...rest);
  });
}

/** Runs the CLI; resolves to the process exit code. */
export async function runCli(io: CliIo): Promise<number> {
  const exit: ExitHolder = { code: EXIT.ok };
  try {
    const chosen: Chosen = {};
    const outline = buildProgram(io, exit, undefined, chosen);
    if (io.argv.length <= 2) {
      // No command is a usage error (as git and gh do): the help goes to stderr, exit 2.
      outline.outputHelp({ error: true });
      return EXIT.usage;
    }
    await outline.parseAsync(io.argv);
    if (chosen.entry === undefined && chosen.help !== true) return exit.code;
    // The outline only found which command runs; parse again with that command fully defined.
    await buildProgram(io, exit, await chosen.entry?.load()).parseAsync(io.argv);
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
  const out = new Output({ json: io.argv.includes("--json"), quiet: false, verbose: io.argv.includes("--verbose"), color: shouldUseColor(io.env, io.stderr.isTTY === true, undefined), stdout: io.stdout, stderr: io.stderr });
  out.error(err instanceof MpsyncError ? err : new MpsyncError("INTERNAL", `unexpected failure: ${String(err)}`, { cause: err }));
  return exitCodeFor(err);
}

/** The version in package.json (two folders up from dist/cli/ and from src/cli/). */
function packageVersion(): string {
  // dist/cli/program.js (tsc) or dist/bin.js and dist/chunks/*.js (the bundled CLI): the first
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
