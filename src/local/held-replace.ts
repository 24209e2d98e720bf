/**
 * Checked replace and remove of a file through a second name of it (a hard link or a rename),
 * so a user's save landing between the check and the replace is never overwritten unseen.
 * A replace can keep that second name as the backup of what it replaced (`KeepReplaced`): the
 * replaced file leaves the folder anyway, so its backup costs one link(2), not a copy.
 */
import { constants, copyFileSync, linkSync, lstatSync, renameSync, unlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isErrno } from "../core/errors.js";
import { GUARDED_TEMP_SUFFIX, tempTag } from "./temp-names.js";

/** Names past the first `.1` ... a replace tries for a backup before giving up (EEXIST). */
const MAX_BACKUP_NAMES = 100;

/** Where a replace keeps what it replaced: its `n`th free name; `kept` tells which it took. */
export interface KeepReplaced {
  name(n: number): string;
  kept?: string;
}

/**
 * Puts `tmp` in place of `file` only if the file there passes `check`, closing the window
 * between a check and a rename in which a user's save would be overwritten unseen:
 *
 * 1. `file` gets a second name, `held` (link(2)): the file as it is now stays reachable
 *    whatever happens to the name. With `keep`, `held` is the backup's name.
 * 2. `check(held)` reads it (the expected content?).
 * 3. In one synchronous step: the name still points at that same file (a save by rename, or a
 *    delete, changed it: give up), and rename(2) puts `tmp` there.
 * 4. `check(held)` again: a save written into the file in place after the first check went into
 *    the held file, not ours. Then the held file goes back under its name (ours is the service's
 *    text, read again by the next cycle) and the write counts as refused.
 *
 * A refused replace never leaves `held` behind: as a backup it would share the live file's
 * inode, and a later save in place would change the "backup". A replace done leaves it as the
 * backup (`keep.kept`), and so does a save in place that a newer save by rename then replaced:
 * that text is kept, not dropped. What remains is a save by rename landing between the two
 * system calls of step 3, and a write through a descriptor opened before step 1 and written
 * after step 4 (with `keep` it lands in the backup). Where hard links are not supported (some
 * network or FAT file systems), the check reads `file` itself before a copy and a rename.
 * Resolves true when `tmp` replaced `file`; `tmp` is gone either way.
 */
export async function replaceHeld(tmp: string, file: string, check: (held: string) => Promise<boolean>, keep?: KeepReplaced): Promise<boolean> {
  let held: string;
  try {
    held = keep === undefined ? linkBeside(file, tmp) : await linkKept(file, keep);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return refuse(tmp);
    if (!isErrno(err, "EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "EXDEV")) throw err;
    if (!(await check(file))) return refuse(tmp);
    if (keep !== undefined) copyKept(file, keep);
    try {
      renameSync(tmp, file);
    } catch (renameErr) {
      // Not replaced (an immutable file refuses links and renames alike): no backup of it.
      if (keep?.kept !== undefined) unlinkQuietly(keep.kept);
      delete keep?.kept;
      throw renameErr;
    }
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
    kept = true;
    if (await check(held)) return true;
    // Written in place meanwhile: the user's text goes back, unless a newer save replaced ours.
    if (lstatSync(file, { throwIfNoEntry: false })?.ino === oursIno) {
      renameSync(held, file);
      kept = false;
    }
    return false;
  } finally {
    if (kept && keep !== undefined) keep.kept = held;
    else unlinkQuietly(held);
  }
}

/** A hard link of `file` named after its temp file `tmp` (the temp suffix: swept if a kill leaves it). */
function linkBeside(file: string, tmp: string): string {
  const held = `${tmp.slice(0, -GUARDED_TEMP_SUFFIX.length)}.held${GUARDED_TEMP_SUFFIX}`;
  linkSync(file, held);
  return held;
}

/** A hard link of `file` at the first free name of `keep`. */
async function linkKept(file: string, keep: KeepReplaced): Promise<string> {
  await mkdir(dirname(keep.name(0)), { recursive: true });
  for (let n = 0; ; n++) {
    try {
      linkSync(file, keep.name(n));
      return keep.name(n);
    } catch (err) {
      if (!isErrno(err, "EEXIST") || n >= MAX_BACKUP_NAMES) throw err;
    }
  }
}

/** A copy of `file` at the first free name of `keep` (no hard links here). */
function copyKept(file: string, keep: KeepReplaced): void {
  for (let n = 0; ; n++) {
    try {
      copyFileSync(file, keep.name(n), constants.COPYFILE_EXCL);
      keep.kept = keep.name(n);
      return;
    } catch (err) {
      if (!isErrno(err, "EEXIST") || n >= MAX_BACKUP_NAMES) throw err;
    }
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
