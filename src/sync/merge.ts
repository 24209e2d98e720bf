/**
 * Line-based 3-way text merge (node-diff3) and conflict resolution by policy
 * (README, "How sync works"). Pure: the executor reads and writes the files.
 */
import { diff3Merge } from "node-diff3";
import { formatRemoteMarker, hasConflictMarkers, MARKER_BASE, MARKER_LOCAL, MARKER_SEPARATOR } from "../core/markers.js";
import type { ConflictPolicy, LocalBlock } from "./model.js";

/** Inputs of a 3-way text merge. */
export interface MergeTextInput {
  /** Common ancestor; undefined (no base recorded) merges against an empty file. */
  base: string | undefined;
  local: string;
  remote: string;
  /** Label of the remote side in the end marker, e.g. "remote v7". */
  remoteLabel: string;
}

/** A merge result: clean, or text holding `conflicts` marker blocks. */
export type MergeTextResult = { clean: true; text: string } | { clean: false; text: string; conflicts: number };

/** A text split into lines without terminators, plus how it ends lines. */
interface SplitText {
  lines: string[];
  eol: "\n" | "\r\n";
  finalNewline: boolean;
}

function splitText(text: string): SplitText {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = (text.match(/\n/g)?.length ?? 0) - crlf;
  // Majority wins so a mostly-CRLF file with one stray LF keeps CRLF.
  const eol = crlf > lf ? "\r\n" : "\n";
  if (text === "") return { lines: [], eol, finalNewline: false };
  const lines = text.split(/\r?\n/);
  const finalNewline = lines[lines.length - 1] === "";
  if (finalNewline) lines.pop();
  return { lines, eol, finalNewline };
}

/** 3-way pick of a scalar property: local's value if local changed it, else remote's. */
function pick3<T>(base: T, local: T, remote: T): T {
  return local === base ? remote : local;
}

/** Merges `local` and `remote` against `base` line by line; overlaps get git-style markers. */
export function mergeText(input: MergeTextInput): MergeTextResult {
  const { local, remote } = input;
  const base = input.base ?? "";
  // Exact shortcuts: a one-sided change is returned byte for byte (EOLs included).
  if (local === remote || remote === base) return { clean: true, text: local };
  if (local === base) return { clean: true, text: remote };
  const o = splitText(base);
  const a = splitText(local);
  const b = splitText(remote);
  // An empty ancestor has no line-ending style of its own: local's counts as unchanged.
  const eol = pick3(input.base === undefined || o.lines.length === 0 ? a.eol : o.eol, a.eol, b.eol);
  const finalNewline = pick3(o.finalNewline, a.finalNewline, b.finalNewline);
  const out: string[] = [];
  let conflicts = 0;
  let endsInConflict = false;
  const endMarker = formatRemoteMarker(input.remoteLabel);
  for (const region of diff3Merge(a.lines, o.lines, b.lines, { excludeFalseConflicts: true })) {
    if (region.ok !== undefined) {
      out.push(...region.ok);
      endsInConflict = false;
    } else if (region.conflict !== undefined) {
      const { a: la, o: lo, b: lb } = region.conflict;
      out.push(MARKER_LOCAL, ...la, MARKER_BASE, ...lo, MARKER_SEPARATOR, ...lb, endMarker);
      conflicts += 1;
      endsInConflict = true;
    }
  }
  if (out.length === 0) return { clean: true, text: "" };
  // A marker line must be a whole line even where neither side ended with a newline.
  const text = out.join(eol) + (finalNewline || endsInConflict ? eol : "");
  return conflicts === 0 ? { clean: true, text } : { clean: false, text, conflicts };
}

/** Inputs of resolveConflict: the three texts of one conflicted path and the policy. */
export interface ConflictInput {
  policy: ConflictPolicy;
  base: string | undefined;
  /** Local text; may be undefined only when `localBlocked` is "binary" (it is never read then). */
  local: string | undefined;
  remote: string;
  remoteLabel: string;
  /** The local file can never be pushed as it is (binary, or it still holds markers). */
  localBlocked?: LocalBlock;
}

/** What the executor does for one conflict. Undefined `write`/`push`: that side already holds it. */
export interface ConflictResolution {
  /** New local content (the executor backs up the old file first). */
  write: string | undefined;
  /** Content to PATCH. */
  push: string | undefined;
  /** Copies kept under .mpsync/conflicts/. */
  saveToConflicts: { local?: string; remote?: string; base?: string };
  /** True when the user still has to act (markers written, or a binary that could not merge). */
  unresolved: boolean;
}

/** Resolves one conflict by policy (README, "How sync works"); never pushes a blocked local file. */
export function resolveConflict(input: ConflictInput): ConflictResolution {
  const { policy, remote, local } = input;
  // Derived as well as passed: merging a marked file again would nest marker blocks.
  const blocked = input.localBlocked ?? (local === undefined ? "binary" : hasConflictMarkers(local) ? "markers" : undefined);
  if (blocked !== undefined || local === undefined) return resolveBlocked(policy, blocked ?? "binary", remote);
  if (policy === "keep-local") {
    return { write: undefined, push: orUndefined(local, remote), saveToConflicts: { remote }, unresolved: false };
  }
  if (policy === "keep-remote") {
    return { write: orUndefined(remote, local), push: undefined, saveToConflicts: { local }, unresolved: false };
  }
  const merged = mergeText({ base: input.base, local, remote, remoteLabel: input.remoteLabel });
  if (merged.clean) {
    // The executor backs up the local file before replacing it, so nothing is lost here.
    return { write: orUndefined(merged.text, local), push: orUndefined(merged.text, remote), saveToConflicts: {}, unresolved: false };
  }
  const saved = input.base === undefined ? { local, remote } : { local, remote, base: input.base };
  return { write: merged.text, push: undefined, saveToConflicts: saved, unresolved: true };
}

/**
 * A binary or marker-holding local file: it cannot be merged or pushed. keep-remote still wins
 * for a binary (the executor's backup keeps the old bytes); otherwise the local file stays and
 * the remote text is saved. A file with markers is never overwritten, whatever the policy: the
 * user is in the middle of resolving it.
 */
function resolveBlocked(policy: ConflictPolicy, blocked: LocalBlock, remote: string): ConflictResolution {
  if (blocked === "binary" && policy === "keep-remote") {
    return { write: remote, push: undefined, saveToConflicts: {}, unresolved: false };
  }
  const unresolved = blocked === "markers" || policy === "merge";
  return { write: undefined, push: undefined, saveToConflicts: { remote }, unresolved };
}

function orUndefined(value: string, already: string): string | undefined {
  return value === already ? undefined : value;
}
