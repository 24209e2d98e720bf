/**
 * Log records as a person reads them, on the terminal's stderr. By default in the voice of the
 * daemon's events (`14:03:07 web ! warning  message`: time, folder, badge, words; no level
 * names, no key=value); with `-v` the detailed form, `14:03:07 WARN  web  message  key=value`.
 * JSON stays for `--json` and `--log-file` (machines and files).
 */
import type { DestinationStream } from "pino";
import { clockTime } from "./clock-time.js";

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
const SKIPPED = new Set(["level", "time", "msg", "dir", "component", "pid", "hostname", "shownAsEvent"]);

/** How a line names a record's folder, from its `dir` as written in .syncrc (the CLI: `Output.folder`, the label). */
export type FolderName = (dir: string) => string;
const asWritten: FolderName = (dir) => dir;

/**
 * A pino destination that renders each record as one readable line on `out` (`verbose`: with
 * its fields; `folder`: how the line names a record's folder, as the events' lines do).
 */
export function createHumanLogDestination(out: { write(text: string): unknown }, options: { verbose?: boolean; folder?: FolderName } = {}): DestinationStream {
  const folder = options.folder ?? asWritten;
  return {
    write(line: string): void {
      // A record that duplicates an event the terminal already shows is left to files and --json.
      if (line.includes('"shownAsEvent":true')) return;
      out.write(`${options.verbose === true ? renderLogLine(line, folder) : renderLogLineAsEvent(line, folder)}\n`);
    },
  };
}

/** Badges of log levels, padded like the events' names (`notice   `). */
const EVENT_BADGES: Record<string, string> = { info: "notice   ", warn: "! warning", error: "✗ error  ", fatal: "✗ error  " };

/** A pino JSON line's record; undefined for a line that is not JSON (it passes through). */
function parseRecord(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** One pino JSON line in the events' voice: time, folder, badge, message (and the error's words). */
export function renderLogLineAsEvent(line: string, folder: FolderName = asWritten): string {
  const rec = parseRecord(line);
  if (rec === undefined) return line.trimEnd();
  const time = typeof rec.time === "number" ? clockTime(rec.time) : "";
  const level = LEVELS[Number(rec.level)] ?? "info";
  const where = typeof rec.dir === "string" ? folder(rec.dir) : "mpsync";
  const err = rec.err as { message?: unknown } | undefined;
  const why = err !== undefined && typeof err.message === "string" ? `: ${err.message}` : "";
  return [time, where, EVENT_BADGES[level] ?? level.padEnd(9), `${String(rec.msg ?? "")}${why}`].filter((p) => p !== "").join(" ");
}

/** One pino JSON line as a readable line (a line that is not JSON passes through). */
export function renderLogLine(line: string, folder: FolderName = asWritten): string {
  const rec = parseRecord(line);
  if (rec === undefined) return line.trimEnd();
  const time = typeof rec.time === "number" ? clockTime(rec.time) : "";
  const level = (LEVELS[Number(rec.level)] ?? "log").toUpperCase().padEnd(5);
  const dir = typeof rec.dir === "string" ? `${folder(rec.dir)}  ` : "";
  const err = rec.err as { message?: unknown } | undefined;
  const extras = Object.entries(rec)
    .filter(([k]) => !SKIPPED.has(k) && k !== "err")
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  if (err !== undefined && typeof err.message === "string") extras.push(`error=${err.message}`);
  return [time, level, `${dir}${String(rec.msg ?? "")}`, ...extras].filter((p) => p !== "").join("  ");
}
