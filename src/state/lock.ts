/**
 * One process per mapped folder: `.mpsync/lock` holds {pid, hostname, command, startedAt},
 * created with O_EXCL.
 *
 * Why a pid file and not proper-lockfile: proper-lockfile decides staleness by an mtime it
 * refreshes on a timer, so a suspended laptop, a SIGSTOPped or debugged daemon loses its lock
 * after `stale` ms while still running, and a crashed one blocks the folder for that long. A pid
 * file answers "is the holder alive?" exactly on this host (kill(pid, 0)), needs no timer, and
 * tells `status` and the FOLDER_LOCKED message who holds the folder and since when.
 */
import { readFileSync } from "node:fs";
import { hostname as osHostname, uptime } from "node:os";
import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { MpsyncError, isErrno } from "../core/errors.js";
import { processExists } from "../core/process-exists.js";
import { assertStateDirSafe, STATE_DIR_NAME, writeGitignore } from "./state-store.js";

const lockInfoSchema = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  command: z.string(),
  startedAt: z.number(),
});

/** Who holds a folder. */
export type LockInfo = z.infer<typeof lockInfoSchema>;

/** A held folder lock. */
export interface FolderLock {
  readonly info: LockInfo;
  /** Removes the lock file if it is still ours; safe to call twice. */
  release(): Promise<void>;
  /** False when the lock file vanished or another process now holds it (someone removed `.mpsync/`). */
  stillHeld(): Promise<boolean>;
  /**
   * Takes the lock again after it vanished with the folder's `.mpsync/` (the mapped folder was
   * removed and is back), unless another process took it meanwhile or the folder is still
   * missing. True when this process holds it.
   */
  reclaim(): Promise<boolean>;
}

/** A takeover marker older than this belongs to a process that died mid-takeover. */
const TAKEOVER_STALE_MS = 10_000;
/** A lock file caught between its O_EXCL create and its content write is re-read this often. */
const PARTIAL_RETRY_MS = 25;
const PARTIAL_RETRIES = 20;

/** Path of the lock file of `root`. */
export function folderLockPath(root: string): string {
  return join(root, STATE_DIR_NAME, "lock");
}

/** Takes the folder lock, taking over a lock whose holder died; else throws FOLDER_LOCKED. */
export async function acquireFolderLock(root: string, options: { command: string; now?: () => number }): Promise<FolderLock> {
  const file = folderLockPath(root);
  const info: LockInfo = { pid: process.pid, hostname: osHostname(), command: options.command, startedAt: (options.now ?? Date.now)() };
  await assertStateDirSafe(join(root, STATE_DIR_NAME));
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createExclusive(file, info)) return heldLock(root, info);
    const holder = await readFolderLock(root);
    if (holder !== undefined && isLockHolderAlive(holder)) throw lockedError(root, holder);
    // Dead holder (or an unreadable lock): take over under a second exclusive marker, so two
    // processes that both saw the dead pid cannot both delete and re-create the lock.
    await takeOver(root, holder);
  }
  const holder = await readFolderLock(root);
  throw lockedError(root, holder ?? { pid: 0, hostname: "?", command: "?", startedAt: 0 });
}

/** The current holder of `root`'s lock, without taking it (for `status` and `doctor`). */
export async function readFolderLock(root: string): Promise<LockInfo | undefined> {
  const file = folderLockPath(root);
  for (let i = 0; i < PARTIAL_RETRIES; i++) {
    let raw: string;
    try {
      raw = await readFile(file, "utf8");
    } catch (err) {
      if (isErrno(err, "ENOENT")) return undefined;
      throw err;
    }
    const parsed = safeJson(raw);
    const result = lockInfoSchema.safeParse(parsed);
    if (result.success) return result.data;
    // Empty or partial: another process is between its O_EXCL create and its write.
    await new Promise((r) => setTimeout(r, PARTIAL_RETRY_MS));
  }
  return undefined;
}

/** Throws FOLDER_LOCKED when another live process holds `root`, without taking the lock (a refusal before anything is printed). */
export async function assertFolderFree(root: string): Promise<void> {
  const holder = await readFolderLock(root);
  if (holder !== undefined && holder.pid !== process.pid && isLockHolderAlive(holder)) throw lockedError(root, holder);
}

/**
 * False only when the holder is certainly gone: same host and (no such pid, or the lock was
 * taken before this machine booted, so the pid now names an unrelated process).
 */
export function isLockHolderAlive(info: LockInfo): boolean {
  if (info.hostname !== osHostname()) return true;
  const bootedAt = Date.now() - uptime() * 1000;
  // One minute of slack: uptime() has a coarse resolution and clocks get adjusted.
  if (info.startedAt < bootedAt - 60_000) return false;
  if (!processExists(info.pid)) return false;
  // The pid may have been reused by a process started after the holder took the lock (it
  // could only have started before). Linux tells a process's start time; elsewhere, trust it.
  const started = processStartedAt(info.pid);
  return started === undefined || started <= info.startedAt + PID_START_SLACK_MS;
}

/** Slack between a process's start (clock ticks since boot) and the time it wrote in the lock. */
const PID_START_SLACK_MS = 5_000;

/** When process `pid` started (epoch ms), from /proc; undefined where /proc is not available. */
export function processStartedAt(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime, in clock ticks since boot) follows the `(comm)` field, which may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1];
    if (!Number.isFinite(ticks) || btime === undefined) return undefined;
    return Number(btime) * 1000 + (ticks / CLOCK_TICKS_PER_SEC) * 1000;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on every Linux platform Node.js supports. */
const CLOCK_TICKS_PER_SEC = 100;

async function createExclusive(file: string, info: LockInfo): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, "wx");
  } catch (err) {
    if (isErrno(err, "EEXIST")) return false;
    throw err;
  }
  try {
    await handle.writeFile(`${JSON.stringify(info)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

async function takeOver(root: string, judged: LockInfo | undefined): Promise<void> {
  const file = folderLockPath(root);
  const marker = `${file}.takeover`;
  const mine = await open(marker, "wx").catch(async (err: unknown) => {
    if (!isErrno(err, "EEXIST")) throw err;
    await clearStaleMarker(marker);
    return undefined;
  });
  if (mine === undefined) {
    // Someone else is taking over right now; the next attempt sees their lock.
    await new Promise((r) => setTimeout(r, PARTIAL_RETRY_MS * 4));
    return;
  }
  try {
    await mine.close();
    // Re-read under the marker: remove only the very lock we judged dead.
    const now = await readFolderLock(root);
    if (sameHolder(now, judged)) await rm(file, { force: true });
  } finally {
    await rm(marker, { force: true });
  }
}

async function clearStaleMarker(marker: string): Promise<void> {
  try {
    const { mtimeMs } = await stat(marker);
    if (Date.now() - mtimeMs > TAKEOVER_STALE_MS) await rm(marker, { force: true });
  } catch {
    // Gone already.
  }
}

function sameHolder(a: LockInfo | undefined, b: LockInfo | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.pid === b.pid && a.hostname === b.hostname && a.startedAt === b.startedAt && a.command === b.command;
}

function heldLock(root: string, info: LockInfo): FolderLock {
  let released = false;
  return {
    info,
    async release() {
      if (released) return;
      released = true;
      const current = await readFolderLock(root).catch(() => undefined);
      // After a (wrongful) takeover the file may be someone else's: leave theirs alone.
      if (sameHolder(current, info)) await rm(folderLockPath(root), { force: true });
    },
    async stillHeld() {
      return sameHolder(await readFolderLock(root).catch(() => undefined), info);
    },
    async reclaim() {
      if (released) return false;
      const dir = join(root, STATE_DIR_NAME);
      try {
        // Never the mapped folder itself: a folder still missing stays the breaker's case.
        await mkdir(dir, { mode: 0o700 });
      } catch (err) {
        if (!isErrno(err, "EEXIST")) return false;
      }
      await writeGitignore(dir);
      return (await createExclusive(folderLockPath(root), info)) || sameHolder(await readFolderLock(root).catch(() => undefined), info);
    },
  };
}

function lockedError(root: string, holder: LockInfo): MpsyncError {
  const since = holder.startedAt > 0 ? ` since ${new Date(holder.startedAt).toISOString()}` : "";
  const where = holder.hostname === osHostname() ? "" : ` on host ${holder.hostname}`;
  return new MpsyncError("FOLDER_LOCKED", `${root} is being synced by another mpsync process (pid ${holder.pid}${where}, "${holder.command}"${since})`, {
    hint:
      holder.command === "mpsync watch" || holder.command === "mpsync dev"
        ? `a running ${holder.command === "mpsync dev" ? "mpsync dev" : "watch"} syncs it already: mpsync sync makes it sync now, mpsync pull --force hands it a forced pull, mpsync status shows it`
        : `stop that process, or delete ${folderLockPath(root)} if it is no longer running`,
  });
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
