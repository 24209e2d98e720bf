/**
 * Writing `.syncrc` for `mpsync init`: a new file, or one more mapping in an existing one.
 * An existing file is edited in place so the user's comments and layout survive; every write
 * is validated first and atomic.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { writeFileAtomically, writeJsonAtomically } from "../local/atomic-write.js";
import { ConfigInvalidError } from "./config-error.js";
import { renderValue } from "./format-issues.js";
import { buildSyncrcJsonSchema } from "./json-schema.js";
import { type JsonNode, scanJson } from "./json-scan.js";
import { displayPath, findConfigFile } from "./load-config.js";
import { normalizeDir, type DesignMapping, type SyncrcInput } from "./schema.js";
import { blankOutJsonc, parseSyncrcText, validateSyncrc } from "./validate-syncrc.js";
import { isErrno } from "../core/errors.js";

/** The copy of the JSON Schema `init` writes beside a new `.syncrc`. */
export const SCHEMA_FILE_NAME = ".syncrc.schema.json";

/** What {@link addDesignMapping} did. */
export interface AddedMapping {
  /** Absolute path of the config file written. */
  path: string;
  /** True when the file did not exist before. */
  created: boolean;
  /** The mapping as stored: `dir` relative to the config file's folder, `/`-separated. */
  mapping: DesignMapping;
}

/** Validates `config` and writes it as 2-space JSON, atomically. Throws ConfigInvalidError. */
export async function writeConfig(path: string, config: SyncrcInput): Promise<void> {
  validateSyncrc(config, path);
  await writeJsonAtomically(path, config);
}

/**
 * Maps folder `dir` (relative to `cwd`, or absolute) to `design` in the config at `path`, or
 * when `path` is undefined in the nearest `.syncrc` above `cwd`, else a new `cwd/.syncrc`.
 * Refuses a folder that is already mapped (ConfigInvalidError).
 */
export async function addDesignMapping(
  path: string | undefined,
  mapping: { dir: string; design: string },
  cwd: string,
  /** Settings a NEW file starts with (init: the service address in use); an existing file keeps its own. */
  initial: Omit<SyncrcInput, "designs"> = {},
): Promise<AddedMapping> {
  const file = path === undefined ? ((await findConfigFile(cwd)) ?? join(cwd, ".syncrc")) : resolve(cwd, path);
  const stored: DesignMapping = { dir: toConfigRelativeDir(resolve(cwd, mapping.dir), dirname(file)), design: mapping.design };
  const label = displayPath(file, cwd);
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return undefined;
    throw new ConfigInvalidError([`${label}: cannot read the file (${String(error)})`], { cause: error });
  });
  if (text === undefined) {
    // The schema goes beside the new file, so "$schema" resolves for every teammate and every
    // kind of install (a path into node_modules only works for a local one).
    await writeFileAtomically(join(dirname(file), SCHEMA_FILE_NAME), `${JSON.stringify(buildSyncrcJsonSchema(), null, 2)}\n`);
    await writeConfig(file, { $schema: `./${SCHEMA_FILE_NAME}`, ...initial, designs: [stored] });
    return { path: file, created: true, mapping: stored };
  }

  const raw = parseSyncrcText(text, label);
  const existing = isRecord(raw) && Array.isArray(raw["designs"]) ? (raw["designs"] as unknown[]) : undefined;
  if (!isRecord(raw) || (raw["designs"] !== undefined && existing === undefined)) validateSyncrc(raw, label);
  const taken = (existing ?? []).findIndex((m) => isRecord(m) && typeof m["dir"] === "string" && normalizeDir(m["dir"]) === normalizeDir(stored.dir));
  if (taken >= 0) {
    const design = (existing?.[taken] as { design?: unknown }).design;
    throw new ConfigInvalidError([`${label}: designs[${taken}]: folder ${JSON.stringify(stored.dir)} is already mapped to design ${renderValue(design)}`]);
  }
  const expected = { ...(raw as Record<string, unknown>), designs: [...(existing ?? []), stored] };
  validateSyncrc(expected, label);
  await writeFileAtomically(file, insertMapping(text, stored, expected));
  return { path: file, created: false, mapping: stored };
}

/** `folder` relative to `configDir`, `/`-separated, `.` for the config folder itself. */
export function toConfigRelativeDir(folder: string, configDir: string): string {
  const rel = relative(configDir, folder);
  return rel === "" ? "." : rel.split(sep).join("/");
}

/**
 * Adds `mapping` to the `designs` array of `text` by a textual insertion, so comments stay.
 * Falls back to plain JSON of `expected` if the edited text would not parse back to it.
 */
function insertMapping(text: string, mapping: DesignMapping, expected: Record<string, unknown>): string {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const plain = `${JSON.stringify(expected, null, 2)}\n`.replaceAll("\n", eol);
  let edited: string | undefined;
  try {
    edited = editText(text, blankOutJsonc(text), mapping, eol);
  } catch {
    edited = undefined;
  }
  if (edited === undefined) return plain;
  try {
    return isDeepStrictEqual(JSON.parse(blankOutJsonc(edited)), expected) ? edited : plain;
  } catch {
    return plain;
  }
}

function editText(text: string, blank: string, mapping: DesignMapping, eol: string): string | undefined {
  const root = scanJson(blank);
  if (root.kind !== "object") return undefined;
  const designs = root.members?.find((m) => m.key === "designs")?.value;
  if (designs !== undefined) {
    if (designs.kind !== "array") return undefined;
    const last = designs.items?.at(-1);
    if (last !== undefined) {
      const indent = indentOf(text, last.start);
      // A comment after the last entry on its line belongs to that entry: the comma goes right
      // after the entry, the new entry after the comment (not between the two).
      const lineEnd = endOfLine(text, last.end);
      if (lineEnd !== undefined && blank.slice(last.end, lineEnd).trim() === "") {
        const withEntry = splice(text, lineEnd, lineEnd, `${eol}${indent}${entryText(mapping, indent, eol)}`);
        // A trailing comma (JSONC allows one) already separates them.
        return /^\s*,/.test(text.slice(last.end, lineEnd)) ? withEntry : splice(withEntry, last.end, last.end, ",");
      }
      return splice(text, last.end, last.end, `,${eol}${indent}${entryText(mapping, indent, eol)}`);
    }
    return fillEmpty(text, designs, (outer) => `${outer}  ${entryText(mapping, `${outer}  `, eol)}`, eol);
  }
  const lastMember = root.members?.at(-1)?.value;
  const block = (indent: string): string => `"designs": [${eol}${indent}  ${entryText(mapping, `${indent}  `, eol)}${eol}${indent}]`;
  if (lastMember === undefined) return fillEmpty(text, root, (outer) => `${outer}  ${block(`${outer}  `)}`, eol);
  // The last member's key sits on the line of its value's start: that line gives the indent.
  const indent = indentOf(text, lastMember.start);
  return splice(text, lastMember.end, lastMember.end, `,${eol}${indent}${block(indent)}`);
}

/** Fills an empty `{}` / `[]` (whitespace or comments only inside) with `content(outerIndent)`. */
function fillEmpty(text: string, node: JsonNode, content: (outer: string) => string, eol: string): string {
  const outer = indentOf(text, node.start);
  const inside = text.slice(node.start + 1, node.end - 1);
  if (inside.trim() === "") return splice(text, node.start + 1, node.end - 1, `${eol}${content(outer)}${eol}${outer}`);
  return splice(text, node.start + 1, node.start + 1, `${eol}${content(outer)}${eol}${outer}`);
}

function entryText(mapping: DesignMapping, indent: string, eol: string): string {
  return JSON.stringify({ dir: mapping.dir, design: mapping.design }, null, 2).split("\n").join(`${eol}${indent}`);
}

/** Offset of the line break (its `\r` for CRLF) that ends the line holding `offset`, if any. */
function endOfLine(text: string, offset: number): number | undefined {
  const lf = text.indexOf("\n", offset);
  if (lf < 0) return undefined;
  return text[lf - 1] === "\r" ? lf - 1 : lf;
}

/** The leading whitespace of the line holding `offset`. */
function indentOf(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))?.[0] ?? "";
}

function splice(text: string, start: number, end: number, insert: string): string {
  return `${text.slice(0, start)}${insert}${text.slice(end)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
