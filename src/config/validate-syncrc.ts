/**
 * Text to validated `.syncrc`: JSONC parsing with line and column on syntax errors, then the
 * zod schema with one line per problem. Pure: no file system, no environment.
 */
import stripJsonComments from "strip-json-comments";
import { ConfigInvalidError } from "./config-error.js";
import type { z } from "zod";
import { formatIssues, renderValue } from "./format-issues.js";
import { isLoopbackUrl, MIN_LOOPBACK_POLL_INTERVAL_SEC, MIN_POLL_INTERVAL_SEC, MIN_REMOTE_CHECK_SEC } from "./poll-floor.js";
import { JsonSyntaxError, lineColumnAt, scanJson } from "./json-scan.js";
import { DEFAULT_BASE_URL, MAX_POLL_INTERVAL_SEC, syncrcSchema, type Syncrc } from "./schema.js";

/**
 * Blanks out comments, trailing commas and a BOM with spaces: offsets, lines and columns stay
 * those of the original text, which error messages and in-place edits rely on.
 */
export function blankOutJsonc(text: string): string {
  const withoutBom = text.startsWith("\uFEFF") ? ` ${text.slice(1)}` : text;
  return stripJsonComments(withoutBom, { whitespace: true, trailingCommas: true });
}

/** Parses `.syncrc` text (JSON with comments and trailing commas); `label` names the file in errors. */
export function parseSyncrcText(text: string, label: string): unknown {
  const json = blankOutJsonc(text);
  try {
    return JSON.parse(json) as unknown;
  } catch (error) {
    throw new ConfigInvalidError([`${label}: invalid JSON ${describeSyntaxError(json, error)}`], { cause: error });
  }
}

function describeSyntaxError(json: string, parseError: unknown): string {
  try {
    scanJson(json);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      const { line, column } = lineColumnAt(json, error.offset);
      return `at line ${line}, column ${column}: ${error.message}`;
    }
  }
  // The scanner accepted what JSON.parse refused: fall back to the engine's own words.
  const message = parseError instanceof Error ? parseError.message : String(parseError);
  return `(${message.split("\n")[0] ?? ""})`;
}

/**
 * Validates a parsed `.syncrc` and applies its defaults. Throws ConfigInvalidError (code
 * CONFIG_INVALID) listing every problem, one line each, prefixed with `label`.
 */
export function validateSyncrc(raw: unknown, label: string, options: { baseUrl?: string | undefined } = {}): Syncrc {
  const result = syncrcSchema.safeParse(raw);
  if (result.success) return result.data;
  const fileBaseUrl = isRecord(raw) && typeof raw["baseUrl"] === "string" ? raw["baseUrl"] : undefined;
  const baseUrl = options.baseUrl ?? fileBaseUrl ?? DEFAULT_BASE_URL;
  const lines = result.error.issues.flatMap((issue) => {
    const floored = describeFlooredInterval(issue, raw, baseUrl);
    return floored === undefined ? formatIssues([issue], raw, syncrcSchema) : [floored];
  });
  throw new ConfigInvalidError(lines.length > 0 ? [...new Set(lines)].map((line) => `${label}: ${line}`) : [`${label}: invalid configuration`]);
}

/**
 * An interval whose floor depends on the service (poll-floor.ts): the schema's range starts at
 * the loopback floor, which is not what applies to the real service, so the line states the
 * range for `baseUrl`.
 */
function describeFlooredInterval(issue: z.core.$ZodIssue, raw: unknown, baseUrl: string): string | undefined {
  const key = issue.path.length === 1 ? issue.path[0] : undefined;
  if ((key !== "pollIntervalSec" && key !== "remoteCheckSec") || !isRecord(raw)) return undefined;
  const loopback = isLoopbackUrl(baseUrl);
  const floor = loopback ? MIN_LOOPBACK_POLL_INTERVAL_SEC : key === "pollIntervalSec" ? MIN_POLL_INTERVAL_SEC : MIN_REMOTE_CHECK_SEC;
  const note = loopback ? "" : ` (only a loopback address accepts ${MIN_LOOPBACK_POLL_INTERVAL_SEC} and up)`;
  return `${key}: expected a number from ${floor} to ${MAX_POLL_INTERVAL_SEC} for ${baseUrl}${note}, got ${renderValue(raw[key])}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
