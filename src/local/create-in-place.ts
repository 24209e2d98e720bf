/**
 * A new file written under its own name, for a cycle's many small creates (a first pull of
 * thousands of files): one directory operation, the create, where a temp file costs three
 * (create the temp, link it to the name, unlink the temp), each taking the folder's lock and
 * the file system's journal. Those two extra calls are the largest cost of a large first pull
 * that a client writing in place does not pay.
 *
 * A kill must still never leave a torn file that the next run takes for the user's: the file
 * is created with no permission bits at all (INCOMPLETE_MODE) and gets its mode only once its
 * whole content is written, through the same descriptor. So a file with mode 000 under a name
 * the pull journal (`pending` in state.json, saved before any write) lists is an interrupted
 * create of ours: `removeIncompleteFiles` removes it at the next start that holds the folder
 * lock, and the cycle pulls it again. Meanwhile nobody but root can open it, so an editor or
 * dev server never reads it half-written, and no one can edit it.
 */
import { closeSync, fchmodSync, fstatSync, lstatSync, open as openCallback, unlinkSync, writeFileSync } from "node:fs";
import { mkdir, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { errnoCode, isErrno } from "../core/errors.js";
import { checkPathChain, resolveInside } from "./safe-path.js";

/** The mode of a file while createInPlace writes it (and after a kill in the middle). */
export const INCOMPLETE_MODE = 0o000;

/** True where createInPlace may be used (POSIX modes; Windows maps mode 000 to a read-only flag). */
export const CREATE_IN_PLACE_SUPPORTED = process.platform !== "win32";

/**
 * Creates `file` holding `data` (never over anything: O_EXCL, false when the name is taken),
 * with `mode`. `knownDirs`: folders known to exist (a WriteSession's); the folder made here is
 * added. The open goes through libuv's thread pool; the write, chmod and close run on this
 * thread, so callers keep `data` small (atomic-write.ts INLINE_WRITE_MAX_BYTES).
 */
export async function createInPlace(file: string, data: string | Uint8Array, mode: number, knownDirs: Set<string>): Promise<boolean> {
  const dir = dirname(file);
  if (!knownDirs.has(dir)) {
    await mkdir(dir, { recursive: true });
    knownDirs.add(dir);
  }
  let fd: number;
  try {
    fd = await openInPool(file, INCOMPLETE_MODE);
  } catch (err) {
    if (isErrno(err, "EEXIST")) return false;
    throw err;
  }
  try {
    writeFileSync(fd, data);
    // The mode last: until here the file is marked incomplete.
    fchmodSync(fd, mode);
  } catch (err) {
    removeOwnFile(file, fd);
    closeSync(fd);
    throw err;
  }
  closeSync(fd);
  return true;
}

/** open(2) of a new file (O_CREAT|O_EXCL) in the thread pool, resolving the bare descriptor. */
export function openInPool(path: string, mode: number): Promise<number> {
  return new Promise((resolve, reject) => {
    openCallback(path, "wx", mode, (err, fd) => (err === null ? resolve(fd) : reject(err)));
  });
}

/** A failed create removes its file, unless the name now holds another one (a save by rename). */
function removeOwnFile(file: string, fd: number): void {
  try {
    if (lstatSync(file, { throwIfNoEntry: false })?.ino === fstatSync(fd).ino) unlinkSync(file);
  } catch {
    // Left with mode 000: removeIncompleteFiles takes it at the next start.
  }
}

/**
 * Removes each of `rels` (paths the pull journal lists) that is a regular file with
 * INCOMPLETE_MODE: a create a kill interrupted. Resolves the paths removed. Only for the holder
 * of the folder lock (a live create of another process has that mode too).
 */
export async function removeIncompleteFiles(root: string, rels: Iterable<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const rel of rels) {
    let st;
    try {
      st = await checkPathChain(root, rel);
    } catch {
      continue; // a symlink in the way, or a name the jail refuses: not ours to remove
    }
    if (st === undefined || !st.isFile() || (st.mode & 0o7777) !== INCOMPLETE_MODE) continue;
    try {
      await unlink(resolveInside(root, rel));
      removed.push(rel);
    } catch (err) {
      if (errnoCode(err) !== "ENOENT") throw err;
    }
  }
  return removed;
}

/** The mode open(2) gives a new file by default: 0666 less the process's umask. */
export function defaultFileMode(): number {
  // Without an argument umask is read (set and set back at once; DEP0139 is documentation-only).
  return 0o666 & ~process.umask();
}
