/**
 * Atomic file writes: temp file in the same folder, fsync, rename (write-file-atomic).
 * A kill -9 at any moment leaves either the old or the new content, never a torn file.
 * (A cycle's small new files skip the temp file: create-in-place.ts.)
 */
import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, linkSync, lstatSync, renameSync, unlinkSync, writeFileSync, type Stats } from "node:fs";
import { lstat, mkdir, open, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { isErrno } from "../core/errors.js";
import { openInPool } from "./create-in-place.js";

/** Options of writeFileAtomically. */
export interface AtomicWriteOptions {
  mode?: number;
  /**
   * fsync before the rename. The rename alone already survives a killed process; the fsync
   * adds power-loss durability at a disk flush per file, which only files that cannot be rebuilt need.
   * @default true
   */
  fsync?: boolean;
}

/** Writes `data` to `file` atomically, creating parent folders. */
export async function writeFileAtomically(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  // A view of the caller's bytes, not a copy (Buffer.from(buffer) copies: a pull's base pack is
  // one buffer of every pulled text).
  await writeFileAtomic(file, typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
    fsync: options.fsync ?? true,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
  });
}

/** Writes `value` as JSON (pretty unless `compact`), atomically. */
export async function writeJsonAtomically(file: string, value: unknown, options: AtomicWriteOptions & { compact?: boolean } = {}): Promise<void> {
  const { compact, ...rest } = options;
  await writeFileAtomically(file, `${compact === true ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`, rest);
}

/**
 * Suffix of the temp files of writeFileAtomicallyGuarded. It matches the built-in `*.tmp`
 * ignore rule, so neither the watcher nor a scan ever sees a half-written sibling of a synced
 * file (write-file-atomic names its temps `<file>.<number>`, which a scan would take for a
 * new user file).
 */
export const GUARDED_TEMP_SUFFIX = ".mpsync.tmp";

/** Told the held name of a file replaceHeld replaced, its stat and our file's inode; true takes the held name over. */
export type KeepHeld = (held: string, heldStat: Stats, oursIno: number) => boolean;

/**
 * Atomic write (temp, fsync, rename, fsync of the folder) whose `beforeRename` check runs
 * after the new content is durable and just before the rename; `false` abandons the write.
 * Resolves true when the file was replaced. Keeps an existing file's mode.
 */
export async function writeFileAtomicallyGuarded(
  file: string,
  data: string | Uint8Array,
  options: {
    mode?: number;
    beforeRename?: () => boolean | Promise<boolean>;
    /** Told the folder instead of fsyncing it here, so a batch makes it durable once (write-session.ts). */
    deferFolderSync?: (dir: string) => void;
    /** fsync the content before the rename. @default true */
    fsync?: boolean;
    /** Folders known to exist (a WriteSession's): no mkdir for them; the folder made here is added. */
    knownDirs?: Set<string>;
    /**
     * Publish with link(2) instead of rename(2): fails with EEXIST (resolving false) when the
     * target appeared meanwhile, an atomic "create only if absent".
     */
    createOnly?: boolean;
    /**
     * Replace only an existing file whose content passes this check, given the path of a
     * second name (a hard link) of that file: see replaceHeld. Resolves false otherwise.
     */
    replaceIf?: (held: string) => Promise<boolean>;
    /** With replaceIf: the replaced file's held name, once replaced (late-writes.ts watches it). */
    keepHeld?: KeepHeld;
    /** Published only once this resolves (the temp file is written meanwhile); a rejection abandons the write. */
    publishAfter?: Promise<unknown> | undefined;
  } = {},
): Promise<boolean> {
  const dir = dirname(file);
  if (options.knownDirs?.has(dir) !== true) {
    await mkdir(dir, { recursive: true });
    options.knownDirs?.add(dir);
  }
  const mode = options.mode ?? (options.createOnly === true ? undefined : await existingMode(file));
  // Names are capped so `.<name>.<random>.mpsync.tmp` stays under NAME_MAX (255).
  const tmp = join(dir, `.${basename(file).slice(0, 160)}.${tempTag()}${GUARDED_TEMP_SUFFIX}`);
  const inline = options.fsync === false && fitsInline(data);
  try {
    if (inline) await writeTempInline(tmp, data, mode);
    else await writeTemp(tmp, data, mode, options.fsync !== false);
    await options.publishAfter;
    // The check runs as late as possible: the window in which a concurrent edit can be lost
    // shrinks to the check itself plus one rename(2).
    if (options.beforeRename !== undefined && !(await options.beforeRename())) {
      await removeTemp(tmp);
      return false;
    }
    if (options.replaceIf !== undefined) {
      if (!(await replaceHeld(tmp, file, options.replaceIf, options.keepHeld))) return false;
    } else if (!publish(tmp, file, options.createOnly === true)) return false;
  } catch (err) {
    await removeTemp(tmp);
    throw err;
  }
  if (options.deferFolderSync === undefined) await syncFolder(dir);
  else options.deferFolderSync(dir);
  return true;
}

/**
 * Largest content whose guarded write (without fsync) writes its temp file inline, on this
 * thread, all but the open that creates it (the rename or link that publishes a write always
 * is): calls of a few microseconds each, where each call through libuv's thread pool costs
 * tens of microseconds of queueing and promise work, which dominates a pull of many small
 * files (BENCHMARKS.md, "Figures behind the code's choices"). Larger contents, and writes that
 * fsync, write through the thread pool.
 */
export const INLINE_WRITE_MAX_BYTES = 64 * 1024;

/** At most INLINE_WRITE_MAX_BYTES (a string counted at 3 bytes a character, its UTF-8 worst case). */
export function fitsInline(data: string | Uint8Array): boolean {
  return (typeof data === "string" ? data.length * 3 : data.byteLength) <= INLINE_WRITE_MAX_BYTES;
}

/** Creates `tmp` (never an existing file) holding `data`, with `mode` when given. */
async function writeTemp(tmp: string, data: string | Uint8Array, mode: number | undefined, fsync: boolean): Promise<void> {
  const handle = await open(tmp, "wx", mode ?? 0o666);
  try {
    await handle.writeFile(data);
    // open() applies the umask; an explicit chmod restores the mode the file had.
    if (mode !== undefined) await handle.chmod(mode);
    if (fsync) await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * writeTemp for a small content without fsync: the open that creates the file goes through
 * libuv's thread pool, the rest runs on this thread. Creating an inode is the one costly call
 * (on a busy disk the journal makes it wait, while write, close and link are quick): in the
 * pool, the writes a cycle runs at once wait side by side.
 */
async function writeTempInline(tmp: string, data: string | Uint8Array, mode: number | undefined): Promise<void> {
  const fd = await openInPool(tmp, mode ?? 0o666);
  try {
    writeFileSync(fd, data);
    if (mode !== undefined) fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/**
 * Puts `tmp` in place of `file`: rename(2), or with `createOnly` link(2) then removing `tmp`,
 * which fails (false) when `file` appeared meanwhile: an atomic "create only if absent". On this
 * thread whatever the size: these calls only move names (see INLINE_WRITE_MAX_BYTES).
 */
function publish(tmp: string, file: string, createOnly: boolean): boolean {
  if (!createOnly) {
    renameSync(tmp, file);
    return true;
  }
  let created = true;
  try {
    linkSync(tmp, file);
  } catch (err) {
    if (!isErrno(err, "EEXIST")) throw err;
    created = false;
  }
  try {
    unlinkSync(tmp);
  } catch (err) {
    if (!isErrno(err, "ENOENT")) throw err;
  }
  return created;
}

/**
 * Puts `tmp` in place of `file` only if the file there passes `check`, closing the window
 * between a check and a rename in which a user's save would be overwritten unseen:
 *
 * 1. `file` gets a second name, `held` (link(2)): the file as it is now stays reachable
 *    whatever happens to the name.
 * 2. `check(held)` reads it (the expected content?).
 * 3. In one synchronous step: the name still points at that same file (a save by rename, or a
 *    delete, changed it: give up), and rename(2) puts `tmp` there.
 * 4. `check(held)` again: a save written into the file in place after the first check went into
 *    the held file, not ours. Then the held file goes back under its name (ours is the service's
 *    text, read again by the next cycle) and the write counts as refused.
 *
 * What remains is a save by rename landing between the two system calls of step 3, and a write
 * through a descriptor opened before step 1 and written after step 4 (with `keepHeld`, the held
 * file outlives the replace so that such a write is found: late-writes.ts). Where hard links are not
 * supported (some network or FAT file systems), the check reads `file` itself before a rename.
 * Resolves true when `tmp` replaced `file`; `tmp` is gone either way.
 */
async function replaceHeld(tmp: string, file: string, check: (held: string) => Promise<boolean>, keepHeld?: KeepHeld): Promise<boolean> {
  // Ends in the temp suffix: ignored by the watcher and scans, swept if a kill leaves it.
  const held = `${tmp.slice(0, -GUARDED_TEMP_SUFFIX.length)}.held${GUARDED_TEMP_SUFFIX}`;
  try {
    linkSync(file, held);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return refuse(tmp);
    if (!isErrno(err, "EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "EXDEV")) throw err;
    if (!(await check(file))) return refuse(tmp);
    renameSync(tmp, file);
    return true;
  }
  let kept = false;
  try {
    const heldStat = lstatSync(held);
    if (!heldStat.isFile() || !(await check(held))) return refuse(tmp);
    const heldIno = heldStat.ino;
    const there = lstatSync(file, { throwIfNoEntry: false });
    if (there?.ino !== heldIno) return refuse(tmp);
    const oursIno = lstatSync(tmp).ino;
    renameSync(tmp, file);
    if (await check(held)) {
      kept = keepHeld?.(held, lstatSync(held), oursIno) === true;
      return true;
    }
    // Written in place meanwhile: the user's text goes back, unless a newer save replaced ours.
    if (lstatSync(file, { throwIfNoEntry: false })?.ino === oursIno) renameSync(held, file);
    return false;
  } finally {
    if (!kept) unlinkQuietly(held);
  }
}

/**
 * Removes `file` only if it passes `check`, with replaceHeld's care: the file is first renamed
 * to a held name (a save after that makes a new file), checked there, and put back when it
 * fails the check (unless a new file took the name meanwhile: that save is newer). Resolves
 * true when removed, false when absent or kept.
 */
export async function removeHeld(file: string, check: (held: string) => Promise<boolean>): Promise<boolean> {
  const held = join(dirname(file), `.${basename(file).slice(0, 160)}.${tempTag()}.held${GUARDED_TEMP_SUFFIX}`);
  try {
    renameSync(file, held);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return false;
    throw err;
  }
  let removed = false;
  try {
    removed = lstatSync(held).isFile() && (await check(held));
    if (!removed && lstatSync(file, { throwIfNoEntry: false }) === undefined) renameSync(held, file);
  } catch (err) {
    if (lstatSync(file, { throwIfNoEntry: false }) === undefined) renameSync(held, file);
    throw err;
  } finally {
    unlinkQuietly(held);
  }
  return removed;
}

function refuse(tmp: string): false {
  unlinkQuietly(tmp);
  return false;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if (!isErrno(err, "ENOENT")) throw err;
  }
}

async function existingMode(file: string): Promise<number | undefined> {
  try {
    const st = await lstat(file);
    return st.isFile() ? st.mode & 0o7777 : undefined;
  } catch {
    return undefined;
  }
}

/** Unique per process and call: no random bytes (and no syscall) per write. */
const TEMP_PREFIX = `${process.pid.toString(36)}${randomBytes(3).toString("hex")}`;
let tempCounter = 0;
function tempTag(): string {
  tempCounter += 1;
  return `${TEMP_PREFIX}${tempCounter.toString(36)}`;
}

async function removeTemp(tmp: string): Promise<void> {
  await unlink(tmp).catch((err: unknown) => {
    if (!isErrno(err, "ENOENT")) throw err;
  });
}

/**
 * fsync of a file or a folder (a folder's fsync makes the renames in it durable); best effort:
 * a vanished file, or Windows, which cannot fsync a folder. Failure only weakens durability
 * after a power loss, never atomicity.
 */
export async function fsyncPath(path: string): Promise<void> {
  try {
    const handle = await open(path, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability only (see above).
  }
}

/** Makes the rename itself durable. */
async function syncFolder(dir: string): Promise<void> {
  await fsyncPath(dir);
}
