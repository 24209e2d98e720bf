/**
 * Every copy mpsync holds of one file in a folder's `.mpsync/`: backups (what a pull or a
 * conflict replaced), conflict sides, and the last synced version (the base text). The way
 * back for `mpsync restore`.
 */
import { readFile } from "node:fs/promises";
import { listBackups, listConflictSides, type ConflictSide } from "../local/recovery-layout.js";
import type { StateStore } from "./state-store.js";
import { countLines } from "../core/line-count.js";

/** One copy of a file. */
export interface FileCopy {
  /** When it was saved (epoch ms); undefined for the last synced version. */
  at: number | undefined;
  /** Why it exists, for people. */
  reason: string;
  /** Where it lies (absolute), or undefined for a base text read from the store. */
  file: string | undefined;
  /** Reads its content. */
  read(): Promise<Buffer>;
}

const SIDE_REASONS: Record<ConflictSide, string> = {
  local: "conflict: your side",
  remote: "conflict: the service's side",
  base: "conflict: the common ancestor",
};

/** Copies of `rel` (relative, `/`-separated), newest first; the last synced version last. */
export async function listCopies(store: StateStore, rel: string, baseHash: string | undefined): Promise<FileCopy[]> {
  const backups = (await listBackups(store.backupsDir, rel)).map((b) => ({ ...b, reason: "backup: replaced or removed by sync" }));
  const sides = (await listConflictSides(store.conflictsDir, rel)).map((c) => ({ ...c, reason: SIDE_REASONS[c.side] }));
  const out: FileCopy[] = [...backups, ...sides].map(({ at, reason, file }) => ({ at, reason, file, read: () => readFile(file) }));
  out.sort((a, b) => (b.at ?? 0) - (a.at ?? 0));
  if (baseHash !== undefined) {
    const text = await store.getBase(baseHash);
    if (text !== undefined)
      out.push({ at: undefined, reason: "last synced version (both sides agreed on it)", file: undefined, read: () => Promise.resolve(Buffer.from(text)) });
  }
  return out;
}

/** What putting `copy` back changes against the last synced version: lines it drops and adds. */
export interface RestoreChange {
  removed: string[];
  added: string[];
}

/**
 * The lines a restore of `copy` would take away from (and add to) `synced`, the text both
 * sides last agreed on: what the next push would change on the service. Blank lines ignored.
 */
export function restoreChange(synced: string, copy: string): RestoreChange {
  const [s, c] = [countLines(synced), countLines(copy)];
  const removed = [...s].flatMap(([line, n]) => Array<string>(Math.max(0, n - (c.get(line) ?? 0))).fill(line));
  const added = [...c].flatMap(([line, n]) => Array<string>(Math.max(0, n - (s.get(line) ?? 0))).fill(line));
  return { removed, added };
}

/**
 * The copy `mpsync restore` puts back: the newest at or before `from`; without it, for a file
 * deleted here the last synced version (a backup is older than what the service holds), else
 * the newest copy, else the last synced version.
 */
export function chooseCopy(
  copies: readonly FileCopy[],
  options: { deleted: boolean; from: number | undefined; copy?: string | undefined },
): FileCopy | undefined {
  if (options.copy !== undefined) return copies.find((c) => c.file === options.copy);
  if (options.from !== undefined) {
    const limit = options.from;
    return copies.find((c) => c.at !== undefined && c.at <= limit);
  }
  if (options.deleted) return copies.find((c) => c.at === undefined) ?? copies[0];
  return copies[0];
}
