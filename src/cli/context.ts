/** What every command receives: process I/O (injected by bin.ts or tests) and lazily built parts. */
import { createHumanLogDestination } from "../log/human-destination.js";
import type { Command } from "commander";
import { hasCode, MpsyncError, originOf } from "../core/errors.js";
import { ApiError } from "../api/errors.js";
import { Runtime } from "../runtime.js";
import { Output, shouldUseColor } from "./output.js";

/** The process edge, as data. Only bin.ts builds it from `process`. */
export interface CliIo {
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  /** Subscribes to SIGINT/SIGTERM/SIGHUP; returns an unsubscribe function. */
  onSignal(signal: "SIGINT" | "SIGTERM" | "SIGHUP", handler: () => void): () => void;
}

/** Global flags (README, "Commands"). */
export interface GlobalFlags {
  config?: string;
  json?: boolean;
  verbose?: boolean;
  quiet?: boolean;
  color?: boolean;
  logFile?: string;
}

/** Per-invocation context handed to command actions. */
export interface CommandContext {
  io: CliIo;
  out: Output;
  flags: GlobalFlags;
  runtime: Runtime;
}

/** Builds the context of the command being run from its (global) options. */
export function contextFor(io: CliIo, command: Command): CommandContext {
  const flags = command.optsWithGlobals<GlobalFlags>();
  const out = new Output({
    json: flags.json === true,
    quiet: flags.quiet === true,
    verbose: flags.verbose === true,
    color: shouldUseColor(io.env, io.stdout.isTTY === true, flags.color),
    stdout: io.stdout,
    stderr: io.stderr,
  });
  let warned = false;
  const runtime = new Runtime({
    cwd: io.cwd,
    env: io.env,
    configPath: flags.config,
    logFile: flags.logFile,
    // JSON log records only with --json or in --log-file; a person reads lines, not JSON.
    logDestination:
      flags.json === true || flags.logFile !== undefined
        ? undefined
        : createHumanLogDestination(io.stderr, { verbose: flags.verbose === true, folder: (dir) => out.folder(dir) }),
    logLevel: flags.verbose === true ? "debug" : flags.quiet === true ? "error" : undefined,
    // A person reads folders as paths from where they stand (`demo-design`, not the config's
    // `../demo-design`); JSON keeps `dir` as written in .syncrc.
    onMappings: (mappings) => {
      out.labelFolders(mappings);
      if (!warned) warnSharedDesigns(out, mappings);
      warned = true;
    },
  });
  return { io, out, flags, runtime };
}

/**
 * One design mapped into several folders of one .syncrc: each folder pushes its own edits over
 * the others' and pulls theirs back. Said once per command (init refuses to add such a mapping).
 */
export function warnSharedDesigns(out: Output, mappings: readonly { design: string; label: string }[]): void {
  const byDesign = new Map<string, string[]>();
  for (const m of mappings) byDesign.set(m.design.trim(), [...(byDesign.get(m.design.trim()) ?? []), m.label]);
  for (const [design, dirs] of byDesign) {
    if (dirs.length < 2) continue;
    out.warn(
      `design ${design} is mapped into ${dirs.length} folders (${dirs.join(", ")}): their pushes overwrite each other on the service; keep one mapping per design in .syncrc`,
    );
  }
}

/**
 * A key the service refused (an ApiError, under any ContextError): the same error with a hint
 * saying which key it was (MP_API_KEY, or the one stored for this address and its store), the refusal as its
 * `cause`. A command that sent another key (login) throws a plain MpsyncError with its own
 * words, left alone.
 */
export function explainRefusedKey(err: unknown, ctx: CommandContext): unknown {
  if (!hasCode(err, "UNAUTHORIZED") || !(originOf(err) instanceof ApiError)) return err;
  const key = ctx.runtime.keySource();
  const hint =
    key.source === "env"
      ? "the service refused the key in MP_API_KEY: check it, or unset MP_API_KEY to use the key stored by mpsync login"
      : key.source === "file" || key.source === "keychain"
        ? `the service refused the key stored${key.baseUrl === undefined ? "" : ` for ${key.baseUrl}`}${key.store === undefined ? "" : ` in ${key.store}`}: run mpsync login to store a new one`
        : "no API key: set MP_API_KEY or run mpsync login";
  return new MpsyncError(err.code, err.message, { cause: err, hint });
}
