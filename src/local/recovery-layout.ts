/**
 * The recovery layout of a folder's `.mpsync/`: the one owner of the names under which mpsync
 * keeps the way back (rclone bisync keeps conflict names in one place too). Every writer
 * (executor backups, `restore`, `resolve`, saved conflicts, a corrupt state.json set aside)
 * and every reader (`restore --list`, `resolve`, displaced-edit reports, the soak scripts)
 * builds and parses them here:
 *
 * - `backups/<stamp>/<rel>`: what a pull, a conflict, a restore or a resolve replaced; a second
 *   copy of other content under one stamp is `<rel>.1`, `<rel>.2`, ...
 * - `conflicts/<stamp>/<rel>.local|.remote|.base`: the sides of a conflict (conflictSideName).
 * - `<stamp>`: a UTC time, `2026-11-22T15-44-20-123Z`: sorts by time, valid on every file system.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { resolveInside, UnsafeLocalPathError } from "./safe-path.js";

/** Name of the per-folder store. */
export const STATE_DIR_NAME = ".mpsync";
/** The folder of backups inside the store. */
export const BACKUPS_DIR_NAME = "backups";
/** The folder of saved conflict sides inside the store. */
export const CONFLICTS_DIR_NAME = "conflicts";

/** A side of a saved conflict. */
export type ConflictSide = "local" | "remote" | "base";
/** Every side, in the order they are saved and listed. */
export const CONFLICT_SIDES: readonly ConflictSide[] = ["local", "remote", "base"];
/** The texts of one conflict, by side (a side may be missing: a file one side removed). */
export type ConflictSides = Partial<Record<ConflictSide, string>>;

/** `2024-05-01T10-20-30-123Z` for epoch ms `at`: one folder level, sorts by time. */
export function recoveryStamp(at: number): string {
  return new Date(at).toISOString().replace(/[:.]/g, "-");
}

/** A stamp (`2026-11-22T15-44-20-123Z`) -> epoch ms, or undefined when it is not one. */
export function stampTime(stamp: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(stamp);
  if (m === null) return undefined;
  const at = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(at) ? undefined : at;
}

/** A stamp names one folder level: no separators, no dot-only names. */
export function assertStamp(stamp: string): void {
  if (!/^[A-Za-z0-9._-]+$/.test(stamp) || /^\.+$/.test(stamp)) {
    throw new UnsafeLocalPathError(stamp, "invalid", "a stamp must be one folder name");
  }
}

/** `<backupsDir>/<stamp>/<rel>`, or its `n`th other copy (`<rel>.<n>`); jailed in the stamp's folder. */
export function backupPath(backupsDir: string, stamp: string, rel: string, n = 0): string {
  assertStamp(stamp);
  const target = resolveInside(join(backupsDir, stamp), rel);
  return n === 0 ? target : `${target}.${n}`;
}

/** The backup of `rel` under `stamp` as people see it in messages: `.mpsync/backups/<stamp>/<rel>`. */
export function shownBackupPath(stamp: string, rel: string): string {
  return `${STATE_DIR_NAME}/${BACKUPS_DIR_NAME}/${stamp}/${rel}`;
}

/** The name a conflict's saved side takes beside `rel`: `src/App.tsx.local`. The one place that spells it; conflictedPath reads it back. */
export function conflictSideName(rel: string, side: ConflictSide): string {
  return `${rel}.${side}`;
}

/** `<conflictsDir>/<stamp>/<conflictSideName>`, jailed in the stamp's folder. */
export function conflictSidePath(conflictsDir: string, stamp: string, rel: string, side: ConflictSide): string {
  assertStamp(stamp);
  return resolveInside(join(conflictsDir, stamp), conflictSideName(rel, side));
}

/** One kept copy found on disk. */
export interface KeptCopy {
  /** Its stamp folder. */
  stamp: string;
  /** The stamp's time (epoch ms); undefined for a folder that is not a stamp. */
  at: number | undefined;
  /** Where it lies (absolute). */
  file: string;
}

/** Every backup of `rel` (`rel` and `rel.<n>` under each stamp), in stamp order. */
export async function listBackups(backupsDir: string, rel: string): Promise<KeptCopy[]> {
  const leaf = rel.split("/").pop() ?? rel;
  const out: KeptCopy[] = [];
  for (const stamp of await stamps(backupsDir)) {
    const folder = join(backupsDir, stamp, rel, "..");
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (name === leaf || (name.startsWith(`${leaf}.`) && /^\d+$/.test(name.slice(leaf.length + 1)))) {
        out.push({ stamp, at: stampTime(stamp), file: join(folder, name) });
      }
    }
  }
  return out;
}

/** Every saved side of `rel`'s conflicts, newest stamp first. */
export async function listConflictSides(conflictsDir: string, rel: string): Promise<(KeptCopy & { side: ConflictSide })[]> {
  const out: (KeptCopy & { side: ConflictSide })[] = [];
  for (const stamp of (await stamps(conflictsDir)).reverse()) {
    const names = new Set(await readdir(join(conflictsDir, stamp, rel, "..")).catch(() => [] as string[]));
    const leaf = rel.split("/").pop() ?? rel;
    for (const side of CONFLICT_SIDES) {
      if (names.has(conflictSideName(leaf, side)))
        out.push({ stamp, at: stampTime(stamp), side, file: join(conflictsDir, stamp, conflictSideName(rel, side)) });
    }
  }
  return out;
}

/** The paths (relative, `/`-separated, sorted) that have at least one saved conflict side. */
export async function listConflictedPaths(conflictsDir: string): Promise<string[]> {
  const names = new Set<string>();
  for (const stamp of await stamps(conflictsDir)) {
    for (const entry of await readdir(join(conflictsDir, stamp), { recursive: true }).catch(() => [] as string[])) {
      const rel = conflictedPath(entry.split("\\").join("/"));
      if (rel !== undefined) names.add(rel);
    }
  }
  return [...names].sort();
}

/** `src/App.tsx.local` -> `src/App.tsx` (conflictSideName read back); undefined for a name that is no conflict side. */
function conflictedPath(entry: string): string | undefined {
  for (const side of CONFLICT_SIDES) {
    const suffix = conflictSideName("", side);
    if (entry.length > suffix.length && entry.endsWith(suffix)) return entry.slice(0, -suffix.length);
  }
  return undefined;
}

/** Every file kept under the store's backups and conflicts (absolute paths). */
export async function listKeptFiles(stateDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const sub of [BACKUPS_DIR_NAME, CONFLICTS_DIR_NAME]) {
    const dir = join(stateDir, sub);
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
      if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
    }
  }
  return out;
}

/** The stamp folders under `dir`, sorted (oldest first); none when it is missing. */
async function stamps(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}
