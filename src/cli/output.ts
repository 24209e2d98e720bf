/**
 * Everything the CLI prints goes through Output: concise coloured lines on a TTY, one JSON
 * document (or JSON Lines for `watch`) with --json, nothing but errors with --quiet.
 * Streams are parameters so end-to-end tests can read them.
 */
import pc from "picocolors";
import { createSpinner } from "nanospinner";
import { clockTime } from "../log/clock-time.js";
import { errorCode } from "../core/errors.js";
import { describeError } from "../sync/describe-error.js";
import type { SyncEvent, SyncEventName } from "../sync/events.js";
import { exitCodeFor } from "./exit-codes.js";
import type { CliDocument, CliDocumentKind } from "../app/json-documents.js";

/** Output settings from global flags and the environment. */
export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** A running progress indicator. */
export interface Progress {
  /** True when redrawn in place (a spinner on a TTY): worth refreshing between events. */
  readonly live: boolean;
  update(text: string): void;
  stop(finalLine?: string): void;
}

/** The CLI's printer. */
export class Output {
  readonly opts: OutputOptions;
  readonly #c: ReturnType<typeof pc.createColors>;
  readonly #labels = new Map<string, string>();

  constructor(opts: OutputOptions) {
    this.opts = opts;
    this.#c = pc.createColors(opts.color);
  }

  /** How each mapping's folder is shown to a person: its label (config/mappings.ts `folderLabel`). */
  labelFolders(mappings: readonly { dir: string; label: string }[]): void {
    for (const m of mappings) this.#labels.set(m.dir, m.label);
  }

  /** The folder `dir` (as written in .syncrc) as a person should read it. */
  folder(dir: string): string {
    return this.#labels.get(dir) ?? dir;
  }

  /** Colour helpers (no-ops without colour). */
  get c(): ReturnType<typeof pc.createColors> {
    return this.#c;
  }

  /** A normal line (suppressed by --quiet and --json). */
  info(line: string): void {
    if (!this.opts.quiet && !this.opts.json) this.opts.stdout.write(`${line}\n`);
  }

  /** A success line with a check mark. */
  success(line: string): void {
    this.info(`${this.#c.green("✓")} ${line}`);
  }

  /** A warning on stderr (suppressed by --quiet). */
  warn(line: string): void {
    if (!this.opts.quiet) this.opts.stderr.write(`${this.#c.yellow("!")} ${line}\n`);
  }

  /** Verbose-only detail on stderr. */
  debug(line: string): void {
    if (this.opts.verbose) this.opts.stderr.write(`${this.#c.dim(line)}\n`);
  }

  /** The command's result: one JSON document of `kind` (json-documents.ts) with --json; `human` renders it otherwise. */
  result<K extends CliDocumentKind>(kind: K, doc: CliDocument<K>, human?: () => void): void {
    if (this.opts.json) this.opts.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    else if (human !== undefined && !this.opts.quiet) human();
  }

  /** One JSON line of `kind` (a stream: events, status --watch); only with --json. */
  jsonLine<K extends CliDocumentKind>(kind: K, doc: CliDocument<K>): void {
    if (this.opts.json) this.opts.stdout.write(`${JSON.stringify(doc)}\n`);
  }

  /** A failed command: one line (what, why, what to do); JSON on stdout with --json. */
  error(err: unknown): void {
    const message = describeError(err);
    if (this.opts.json) {
      this.result("error", { ok: false, error: { code: errorCode(err), message, exitCode: exitCodeFor(err) } });
    } else {
      this.opts.stderr.write(`${this.#c.red("error:")} ${message}\n`);
    }
    if (this.opts.verbose && err instanceof Error && err.stack !== undefined) this.opts.stderr.write(`${err.stack}\n`);
  }

  /** A daemon event: a JSON line with --json (`eventLineSchema`), a concise human line otherwise. */
  event(e: SyncEvent): void {
    if (this.opts.json) {
      this.jsonLine("event", { time: new Date().toISOString(), ...e });
      return;
    }
    if (this.opts.quiet && e.event !== "error" && e.event !== "halted" && e.event !== "conflict") return;
    const stamp = this.#c.dim(clockTime(Date.now()));
    // A message of several lines (a .syncrc with two mistakes) keeps its later lines indented
    // under the first, so they read as part of this event, not as stray output.
    const message = e.message.replace(/\n(?=.)/g, "\n           ");
    this.opts.stdout.write(`${stamp} ${this.#c.cyan(this.folder(e.dir))} ${this.#badge(e.event)} ${message}\n`);
  }

  /**
   * A progress bar for long work ("pulling [#####.....] 1,200/3,000 files, 850/s") on a sized
   * TTY, for work of at least `minTotal` items; nothing elsewhere (no line per file: the summary
   * follows the work). `now` gives the time.
   */
  bar(verb: string, now: () => number, minTotal: number): { update(done: number, total: number): void; stop(): void } {
    if (!this.#live()) return { update: () => undefined, stop: () => undefined };
    const started = now();
    let spinner: ReturnType<typeof createSpinner> | undefined;
    return {
      update: (done, total) => {
        if (total < minTotal) return;
        const width = 20;
        const filled = total === 0 ? width : Math.round((width * done) / total);
        const seconds = Math.max((now() - started) / 1000, 0.001);
        const text = `${verb} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} files, ${Math.round(done / seconds).toLocaleString("en-US")}/s`;
        if (spinner === undefined) spinner = createSpinner(text, { stream: this.opts.stderr as NodeJS.WriteStream }).start();
        else spinner.update({ text });
      },
      stop: () => {
        spinner?.clear();
        spinner?.stop();
      },
    };
  }

  /** A spinner with elapsed time on a TTY; plain progress lines otherwise. */
  progress(text: string): Progress {
    if (!this.#live()) {
      if (!this.opts.quiet && !this.opts.json) this.opts.stderr.write(`${text}\n`);
      return {
        live: false,
        update: (t) => {
          if (!this.opts.quiet && !this.opts.json) this.opts.stderr.write(`${t}\n`);
        },
        stop: (line) => {
          if (line !== undefined) this.info(line);
        },
      };
    }
    const spinner = createSpinner(text, { stream: this.opts.stderr as NodeJS.WriteStream }).start();
    return {
      live: true,
      update: (t) => spinner.update({ text: t }),
      stop: (line) => {
        spinner.clear();
        spinner.stop();
        if (line !== undefined) this.info(line);
      },
    };
  }

  /** True when stderr can show live, redrawn lines (spinner, bar). */
  #live(): boolean {
    // A pseudo-terminal with no size (script(1), some CI runners) reports 0 columns: nanospinner's
    // clear() then loops forever, so only a sized terminal gets live output.
    const columns = (this.opts.stderr as { columns?: number }).columns ?? 0;
    return this.opts.stderr.isTTY === true && columns > 0 && !this.opts.json && !this.opts.quiet;
  }

  #badge(name: SyncEventName): string {
    return EVENT_BADGES[name](this.#c, name);
  }
}

type Colors = ReturnType<typeof pc.createColors>;

/** How each event starts its human line: a new event name fails to compile until it has one. */
const EVENT_BADGES: Record<SyncEventName, (c: Colors, name: SyncEventName) => string> = {
  // The message names the files after its verb ("pushed App.tsx"): the badge is the arrow alone.
  pushed: (c) => c.green("↑"),
  pulled: (c) => c.blue("↓"),
  conflict: (c) => c.yellow("⚠ conflict"),
  error: (c) => c.red("✗ error  "),
  halted: (c) => c.red("■ halted "),
  deleted: (c) => c.yellow("- deleted"),
  ready: plainBadge,
  generating: plainBadge,
  idle: plainBadge,
  published: plainBadge,
  rate_limited: plainBadge,
  notice: plainBadge,
};

function plainBadge(c: Colors, name: SyncEventName): string {
  return c.dim(name.padEnd(9));
}

/** Colour on when stdout is a TTY, NO_COLOR unset, and --no-color not given. */
export function shouldUseColor(env: Record<string, string | undefined>, isTTY: boolean, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return isTTY;
}
