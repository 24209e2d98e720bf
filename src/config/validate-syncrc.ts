/**
 * Text to validated `.syncrc`: JSONC parsing with line and column on syntax errors, then the
 * zod schema with one line per problem. Pure: no file system, no environment.
 */
import stripJsonComments from "strip-json-comments";
import { ConfigInvalidError } from "./config-error.js";
import { formatIssues } from "./format-issues.js";
import { JsonSyntaxError, lineColumnAt, scanJson } from "./json-scan.js";
import { syncrcSchema, type Syncrc } from "./schema.js";

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
export function validateSyncrc(raw: unknown, label: string): Syncrc {
  const result = syncrcSchema.safeParse(raw);
  if (result.success) return result.data;
  const lines = formatIssues(result.error.issues, raw, syncrcSchema).map((line) => `${label}: ${line}`);
  throw new ConfigInvalidError(lines.length > 0 ? lines : [`${label}: invalid configuration`]);
}
