/** The root pino logger, with redaction of API keys. Components take `logger.child(...)`. */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";
import { rotatingFileDestination } from "./rotating-file.js";

export type { Logger } from "pino";

/** Paths redacted in every log record. */
export const REDACTED_PATHS = [
  "apiKey",
  "key",
  "*.apiKey",
  "*.key",
  'headers["x-mp-api-key"]',
  'req.headers["x-mp-api-key"]',
  '*.headers["x-mp-api-key"]',
  "request.headers",
];

/** `--log-file`: rotated by size (PATH.1, PATH.2, ...; log/rotating-file.ts). */
export const LOG_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Rotated log files kept beside the current one. */
export const LOG_FILE_COUNT = 5;

/** Creates the root logger writing to `destination`, else to `file` (rotated), else to stderr. */
export function createLogger(options: {
  level?: LevelWithSilent;
  destination?: DestinationStream | undefined;
  /** `--log-file`: this file, rotated by size (LOG_FILE_MAX_BYTES, LOG_FILE_COUNT kept). */
  file?: string | undefined;
  /** Secret values scrubbed from every message string too (defence in depth); read live, so a key found later joins. */
  secrets?: readonly string[];
}): Logger {
  const secrets = options.secrets ?? [];
  return pino(
    {
      level: options.level ?? "info",
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      hooks: {
        logMethod(args, method) {
          if (secrets.length > 0) {
            args = args.map((a) => (typeof a === "string" ? scrubSecrets(a, secrets) : a)) as typeof args;
          }
          method.apply(this, args);
        },
      },
      formatters: {
        log(obj) {
          return secrets.length > 0 ? scrubObject(obj, secrets) : obj;
        },
      },
    },
    options.destination ??
      (options.file === undefined ? pino.destination(2) : rotatingFileDestination(options.file, { maxBytes: LOG_FILE_MAX_BYTES, keep: LOG_FILE_COUNT })),
  );
}

/** Replaces every occurrence of a secret in `text` with `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("[redacted]");
  return out;
}

function scrubObject(obj: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const json = JSON.stringify(obj, (_k, v: unknown) => (v instanceof Error ? { message: v.message, name: v.name } : v));
  return JSON.parse(scrubSecrets(json ?? "{}", secrets)) as Record<string, unknown>;
}

/** A logger that drops everything (tests, library use without logging). */
export function createSilentLogger(): Logger {
  return pino({ level: "silent" });
}
