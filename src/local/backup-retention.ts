/**
 * How long `.mpsync/backups/` keeps what sync replaced (README, "Recovery"): a stamp folder is
 * removed, whole, once its stamp is more than `keepBackupsDays` days old (0: kept forever), as
 * Syncthing's `cleanoutDays` and Dropbox's 30 days do. Age only: a size cap would remove
 * backups younger than the promise, and the churn that fills a disk within hours is younger
 * than any cap that keeps a day. Only stamp folders (and links) named by recovery-layout.ts
 * under `backups/` are touched: never `conflicts/` (unresolved work), never a foreign name,
 * never through a link (a link is removed as a link).
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { errnoCode, isErrno } from "../core/errors.js";
import type { Logger } from "../log/logger.js";
import type { BackupMemory } from "./local-fs.js";
import { assertStamp, BACKUPS_DIR_NAME, STATE_DIR_NAME, stampTime } from "./recovery-layout.js";

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;
/** How often a running daemon prunes (at start, then at the first status poll a day later). */
export const PRUNE_INTERVAL_MS = DAY_MS;
/**
 * A content already backed up is not copied again (a write that keeps failing gets one
 * backup); past this age a new copy is made instead, so a text replaced today is never
 * kept only in a backup that pruning is about to remove.
 */
export const BACKUP_REUSE_MS = 3_600_000;

/** An entry of `backups/` as the rule sees it. */
export interface BackupEntry {
  name: string;
  kind: "folder" | "link" | "other";
}

/**
 * The entries of `backups/` to remove at `now` (epoch ms), oldest first: folders and links
 * named by a stamp more than `keepDays` days before `now`. Pure.
 */
export function backupsToPrune(entries: readonly BackupEntry[], now: number, keepDays: number): string[] {
  if (keepDays <= 0) return [];
  const limit = keepDays * DAY_MS;
  return entries
    .filter((e) => e.kind !== "other")
    .flatMap((e) => {
      const at = stampTime(e.name);
      return at !== undefined && now - at > limit ? [{ name: e.name, at }] : [];
    })
    .sort((a, b) => a.at - b.at)
    .map((e) => e.name);
}

/** What a prune did. */
export interface PruneOutcome {
  /** Stamp folders (or links) removed, oldest first. */
  removed: string[];
  /** What could not be read or removed (`stamp` undefined: backups/ itself). */
  failures: { stamp: string | undefined; code: string }[];
}

/** The file system calls a prune makes (a test hands in a failing one). */
export interface PruneFs {
  lstat: typeof lstat;
  readdir: (dir: string) => Promise<BackupEntry[]>;
  rm: typeof rm;
}

const NODE_FS: PruneFs = {
  lstat,
  readdir: async (dir) =>
    (await readdir(dir, { withFileTypes: true })).map((d) => ({ name: d.name, kind: d.isSymbolicLink() ? "link" : d.isDirectory() ? "folder" : "other" })),
  rm,
};

/** Removes the stamp folders of `backupsDir` that `keepDays` no longer keeps; never throws. */
export async function pruneBackups(backupsDir: string, rule: { now: number; keepDays: number; fs?: PruneFs }): Promise<PruneOutcome> {
  const fs = rule.fs ?? NODE_FS;
  const out: PruneOutcome = { removed: [], failures: [] };
  if (rule.keepDays <= 0) return out;
  let entries: BackupEntry[];
  try {
    // backups/ itself a link: never followed (what it points at is not ours to remove).
    if (!(await fs.lstat(backupsDir)).isDirectory()) return { ...out, failures: [{ stamp: undefined, code: "ENOTDIR" }] };
    entries = await fs.readdir(backupsDir);
  } catch (err) {
    return isErrno(err, "ENOENT") ? out : { ...out, failures: [{ stamp: undefined, code: errnoCode(err) ?? "EIO" }] };
  }
  for (const stamp of backupsToPrune(entries, rule.now, rule.keepDays)) {
    try {
      assertStamp(stamp);
      // rm of a link removes the link; rm of a folder removes links inside it as links.
      await fs.rm(join(backupsDir, stamp), { recursive: true, force: true });
      out.removed.push(stamp);
    } catch (err) {
      out.failures.push({ stamp, code: errnoCode(err) ?? "EIO" });
    }
  }
  return out;
}

/** pruneBackups, said in the folder's log: one info line for what went, one warning for what could not. */
export async function pruneBackupsAndSay(backupsDir: string, rule: { now: number; keepDays: number; fs?: PruneFs }, logger: Logger): Promise<PruneOutcome> {
  const outcome = await pruneBackups(backupsDir, rule);
  const where = `${STATE_DIR_NAME}/${BACKUPS_DIR_NAME}`;
  const days = `${rule.keepDays} day${rule.keepDays === 1 ? "" : "s"}`;
  if (outcome.removed.length > 0)
    logger.info({ removed: outcome.removed.length }, `removed ${outcome.removed.length} backup folder(s) older than ${days} from ${where}`);
  const first = outcome.failures[0];
  if (first !== undefined) {
    const what = first.stamp === undefined ? where : `${where}/${first.stamp}${outcome.failures.length > 1 ? ` and ${outcome.failures.length - 1} more` : ""}`;
    logger.warn({ failures: outcome.failures }, `could not prune ${what} (${first.code}): backups are kept, sync goes on`);
  }
  return outcome;
}

/** The backups folder of the mapped folder at `root`. */
export function backupsDirOf(root: string): string {
  return join(root, STATE_DIR_NAME, BACKUPS_DIR_NAME);
}

/** pruneBackupsAndSay of the mapped folder at `root` (its `.mpsync/backups/`). */
export function pruneFolderBackups(root: string, rule: { now: number; keepDays: number }, logger: Logger): Promise<PruneOutcome> {
  return pruneBackupsAndSay(backupsDirOf(root), rule, logger);
}

/** Forgets `rel`'s remembered backup when it lies in a stamp older than BACKUP_REUSE_MS before `stamp`. */
export function forgetOldBackup(memory: BackupMemory, backupsDir: string, rel: string, stamp: string): void {
  const prior = memory.get(rel);
  if (prior === undefined) return;
  const priorStamp = relative(backupsDir, prior.path).split(sep)[0] ?? "";
  const [then, now] = [stampTime(priorStamp), stampTime(stamp)];
  if (then === undefined || now === undefined || now - then > BACKUP_REUSE_MS) memory.delete(rel);
}

/** What `backups/` holds: stamp folders, files and their bytes (links not followed). */
export interface BackupsSize {
  folders: number;
  files: number;
  bytes: number;
}

/** Measures `backupsDir` (zero when it is missing). */
export async function measureBackups(backupsDir: string): Promise<BackupsSize> {
  const size: BackupsSize = { folders: 0, files: 0, bytes: 0 };
  const top = await NODE_FS.readdir(backupsDir).catch(() => [] as BackupEntry[]);
  size.folders = top.filter((e) => e.kind === "folder" && stampTime(e.name) !== undefined).length;
  const all = await readdir(backupsDir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of all.filter((e) => e.isFile())) {
    const st = await lstat(join(entry.parentPath, entry.name)).catch(() => undefined);
    if (st === undefined) continue;
    size.files += 1;
    size.bytes += st.size;
  }
  return size;
}

/** `1.4 MiB`, `512 B`: a size as people read it. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** `3 folders, 12 files, 4.0 KiB; kept 30 days (keepBackupsDays)`: what backups hold and the rule, in one line. */
export function describeBackups(size: BackupsSize, keepDays: number): string {
  return `${size.folders} folder${size.folders === 1 ? "" : "s"}, ${size.files} file${size.files === 1 ? "" : "s"}, ${formatBytes(size.bytes)}; ${describeRetention(keepDays)}`;
}

/** The rule in force, for people: `kept 30 days` or `kept forever`. */
export function describeRetention(keepDays: number): string {
  return keepDays <= 0 ? "kept forever (keepBackupsDays: 0)" : `kept ${keepDays} day${keepDays === 1 ? "" : "s"} (keepBackupsDays)`;
}
