/**
 * zod issues to one-line problems: `designs[0].dir: expected a string, got 42`. The expected
 * part is read off the schema node at the issue's path, so every message names the key path,
 * the value (truncated) and what would have been accepted, whatever zod's own wording is.
 */
import * as z from "zod";
import { API_KEY_IN_SYNCRC_MESSAGE } from "./schema.js";

/** Longest rendering of a value inside a message, in characters. */
export const MAX_VALUE_CHARS = 40;

/** Renders a value as JSON on one line, truncated to {@link MAX_VALUE_CHARS} with an ellipsis. */
export function renderValue(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "bigint" ? `${value}n` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  // JSON.stringify escapes control characters but not U+2028/9, which some terminals break on.
  text = text.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  const chars = Array.from(text);
  return chars.length > MAX_VALUE_CHARS ? `${chars.slice(0, MAX_VALUE_CHARS - 1).join("")}…` : text;
}

/** Renders a key path the way it is written in JavaScript: `designs[0].dir`, `git.commitOnPull`. */
export function renderPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_$][\w$]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${renderValue(String(segment))}]`;
  }
  return out;
}

/** The known key closest to a misspelt `key`, if one is close enough to be a likely typo. */
export function suggestKey(key: string, known: readonly string[]): string | undefined {
  if (key.length > 64) return undefined;
  const lower = key.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    const isPrefix = Math.min(lower.length, other.length) >= 4 && (other.startsWith(lower) || lower.startsWith(other));
    const distance = isPrefix ? 0.5 : editDistance(lower, other);
    const limit = Math.max(2, Math.floor(Math.max(lower.length, other.length) / 4));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

/**
 * Formats every issue as one line `path: problem` (no file name), plus the apiKey message for
 * an `apiKey` hidden where zod reports only a type error (e.g. inside `ignore`).
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], input: unknown, schema: z.ZodType): string[] {
  const lines = issues.flatMap((issue) => formatIssue(issue, input, schema));
  const holders = issues.length === 0 ? [] : findApiKeyHolders(input);
  const apiKeyLines = holders.map((path) => `${prefixOf(path)}${API_KEY_IN_SYNCRC_MESSAGE}`);
  return [...new Set([...lines, ...apiKeyLines])];
}

/** True for `apiKey`, `api_key`, `API-KEY` and the like. */
export function isApiKeyName(key: string): boolean {
  return key.toLowerCase().replace(/[-_]/g, "") === "apikey";
}

/** Copy of `value` with the values of secret-looking keys replaced, for echoing in messages. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSecretName(k) ? "[redacted]" : redactSecrets(v, depth + 1)]));
}

function formatIssue(issue: z.core.$ZodIssue, input: unknown, schema: z.ZodType): string[] {
  const where = prefixOf(issue.path);
  if (issue.code === "unrecognized_keys") {
    const known = objectKeys(schemaAt(schema, issue.path));
    return issue.keys.map((key) => `${where}${describeUnknownKey(key, known)}`);
  }
  if (issue.code === "custom" && issue.params?.["verbatim"] === true) return [`${where}${issue.message}`];
  const found = valueAt(input, issue.path);
  const expected = describeExpectation(issue, schemaAt(schema, issue.path));
  const got = found.present ? `got ${renderValue(redactSecrets(found.value))}` : "";
  return [found.present ? `${where}expected ${expected}, ${got}` : `${where}missing, expected ${expected}`];
}

function prefixOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "" : `${renderPath(path)}: `;
}

function isSecretName(key: string): boolean {
  return isApiKeyName(key) || /token|secret|password/i.test(key);
}

/** Paths of the objects that hold an apiKey-like key, at any depth. */
function findApiKeyHolders(value: unknown, path: PropertyKey[] = [], depth = 0): PropertyKey[][] {
  if (value === null || typeof value !== "object" || depth > 8) return [];
  const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const here = !Array.isArray(value) && Object.keys(value).some(isApiKeyName) ? [path] : [];
  return [...here, ...entries.flatMap(([k, v]) => findApiKeyHolders(v, [...path, k], depth + 1))];
}

function describeUnknownKey(key: string, known: readonly string[]): string {
  if (isApiKeyName(key)) return API_KEY_IN_SYNCRC_MESSAGE;
  const suggestion = suggestKey(key, known);
  if (suggestion !== undefined) return `unknown key ${renderValue(key)} (did you mean ${JSON.stringify(suggestion)}?)`;
  const list = known.map((k) => JSON.stringify(k)).join(", ");
  return `unknown key ${renderValue(key)}${known.length > 0 ? ` (allowed: ${list})` : ""}`;
}

function describeExpectation(issue: z.core.$ZodIssue, node: z.ZodType | undefined): string {
  // Refinements and patterns in the schema carry their expectation as the message.
  if (issue.code === "custom" || issue.code === "invalid_format") return issue.message;
  if (issue.code === "invalid_value") return oneOf(issue.values);
  const described = node === undefined ? undefined : describeSchema(node, issue.code);
  if (described !== undefined) return described;
  return issue.code === "invalid_type" ? withArticle(issue.expected) : issue.message;
}

/** What a schema node accepts, as a noun phrase with its article ("an integer from 1 to 32"). */
function describeSchema(node: z.ZodType, code: z.core.$ZodIssue["code"]): string | undefined {
  if (node instanceof z.ZodString) return code === "too_small" ? "a non-empty string" : "a string";
  if (node instanceof z.ZodNumber) return describeNumber(node);
  if (node instanceof z.ZodBoolean) return "true or false";
  if (node instanceof z.ZodEnum) return oneOf(node.options);
  if (node instanceof z.ZodArray) {
    const element = unwrap(node.element as z.ZodType);
    const of = element instanceof z.ZodObject ? ` of ${keyList(element)} objects` : element instanceof z.ZodString ? " of strings" : "";
    return `${minArrayLength(node) > 0 ? "a non-empty array" : "an array"}${of}`;
  }
  if (node instanceof z.ZodObject) return `an object ${keyList(node)}`.trimEnd();
  return undefined;
}

function describeNumber(node: z.ZodNumber): string {
  const noun = node.isInt ? "an integer" : "a number";
  // z.int() carries the safe-integer range as bounds: not worth stating.
  const bound = (value: number | null): number | undefined => (value !== null && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined);
  const [min, max] = [bound(node.minValue), bound(node.maxValue)];
  if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
  if (min !== undefined) return `${noun} >= ${min}`;
  return max === undefined ? noun : `${noun} <= ${max}`;
}

function minArrayLength(node: z.ZodArray): number {
  const minimums = (node.def.checks ?? []).map((check) => {
    const def = check._zod.def as { check: string; minimum?: unknown };
    return def.check === "min_length" && typeof def.minimum === "number" ? def.minimum : 0;
  });
  return Math.max(0, ...minimums);
}

/** `{ dir, design }` for a small object; empty for a large one (the root), whose list would not help. */
function keyList(node: z.ZodObject): string {
  const keys = Object.keys(node.shape);
  return keys.length <= 4 ? `{ ${keys.join(", ")} }` : "";
}

function oneOf(values: readonly unknown[]): string {
  const list = values.map((v) => renderValue(v)).join(", ");
  return values.length === 1 ? list : `one of ${list}`;
}

function withArticle(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** The schema node for a key path, seen through defaults and optionals. */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let node: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (node instanceof z.ZodObject && typeof segment === "string") node = node.shape[segment] as z.ZodType | undefined;
    else if (node instanceof z.ZodArray && typeof segment === "number") node = node.element as z.ZodType;
    else return undefined;
    if (node === undefined) return undefined;
    node = unwrap(node);
  }
  return node;
}

function unwrap(node: z.ZodType): z.ZodType {
  let current = node;
  while (current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodOptional) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

function objectKeys(node: z.ZodType | undefined): string[] {
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

function valueAt(input: unknown, path: readonly PropertyKey[]): { present: boolean; value?: unknown } {
  let current: unknown = input;
  for (const segment of path) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, segment)) return { present: false };
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return { present: current !== undefined, value: current };
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}
