/**
 * Safe writes inside a mapped folder: atomic, never through a symlink, never outside the
 * folder, and (for the compare-and-swap variants) never over an edit made since the engine
 * last read the file. The executor backs a file up before it replaces or removes it.
 */
import { readFile, rmdir, unlink } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { hashContent } from "../core/hash.js";
import { fitsInline, removeHeld, writeFileAtomically, writeFileAtomicallyGuarded, type KeepHeld } from "./atomic-write.js";
import type { LateWriteWatch } from "./late-writes.js";
import { createInPlace, CREATE_IN_PLACE_SUPPORTED, defaultFileMode } from "./create-in-place.js";
import { checkPathChain, resolveInside, UnsafeLocalPathError } from "./safe-path.js";
import type { WriteSession } from "./write-session.js";
import { assertStamp, backupPath } from "./recovery-layout.js";
import { readLocalFile } from "./scan-tree.js";
import { isErrno } from "../core/errors.js";

/** Outcome of a compare-and-swap write. */
export type CasWriteResult = "written" | "changed-meanwhile";
/** Outcome of a compare-and-swap remove. */
export type CasRemoveResult = "removed" | "changed-meanwhile";

/** Atomically writes `rel` under `root`, creating parents; refuses symlinks and escapes. */
export async function writeLocalFile(root: string, rel: string, content: string | Uint8Array): Promise<void> {
  await writeChecked(root, rel, content, undefined);
}

/**
 * Writes `newContent` only if the file's hash is still `expectedHash` (undefined: it must be
 * absent). The check runs again after the new content is on disk, right before the rename.
 * With `after`, the new content takes the name only once it resolves (the temp file is written
 * meanwhile); a rejection abandons the write.
 */
export async function replaceIfUnchanged(
  root: string,
  rel: string,
  expectedHash: string | undefined,
  newContent: string | Uint8Array,
  options: { session?: WriteSession; after?: Promise<unknown> | undefined; localEdit?: LocalEditGuard | undefined } = {},
): Promise<CasWriteResult> {
  const { session, after, localEdit } = options;
  if (expectedHash === undefined) {
    // Must be absent: link(2) publishes only if nothing appeared meanwhile, with no re-reads
    // (a first pull of thousands of files spent most of its time in those checks).
    return (await writeChecked(root, rel, newContent, undefined, { session, createOnly: true, after })) ? "written" : "changed-meanwhile";
  }
  // A local edit may still be being written (a truncate, then the text): never replaced under
  // its writer, and a write that lands on it after the replace is found (late-writes.ts).
  if (localEdit !== undefined) await localEdit.quiet(resolveInside(root, rel));
  // A cheap first check avoids writing a temp file when the answer is already known.
  if ((await currentHash(root, rel)) !== expectedHash) return "changed-meanwhile";
  const late = localEdit?.late;
  const keepHeld: KeepHeld | undefined =
    late === undefined
      ? undefined
      : (held, stat, oursIno) => {
          late.keep({ held, file: resolveInside(root, rel), rel, stat, oursIno, oursHash: hashContent(newContent) });
          return true;
        };
  return (await writeChecked(root, rel, newContent, expectedHash, { session, after, keepHeld })) ? "written" : "changed-meanwhile";
}

/** How a replace over a local edit waits for its writer (late-writes.ts). */
export interface LocalEditGuard {
  /** Resolves once the file at `abs` is quiet (waitUntilQuiet). */
  quiet(abs: string): Promise<void>;
  /** Watches the replaced file for a late write; undefined: the held file goes at once. */
  late: LateWriteWatch | undefined;
}

/** Removes `rel` and its now-empty parent folders (never `root`). Resolves false when absent. */
export async function removeLocalFile(root: string, rel: string): Promise<boolean> {
  const abs = resolveInside(root, rel);
  const st = await checkPathChain(root, rel);
  if (st === undefined) return false;
  if (!st.isFile()) throw new UnsafeLocalPathError(rel, "not-a-file", "it is not a regular file");
  try {
    await unlink(abs);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return false;
    throw err;
  }
  await removeEmptyParents(root, abs);
  return true;
}

/**
 * Removes `rel` only if its hash is still `expectedHash`, judged on the file moved aside (a save
 * after the move makes a new file, which stays; a file that fails the check is put back):
 * see removeHeld.
 */
export async function removeIfUnchanged(root: string, rel: string, expectedHash: string, options: { session?: WriteSession } = {}): Promise<CasRemoveResult> {
  if ((await currentHash(root, rel)) !== expectedHash) return "changed-meanwhile";
  const abs = resolveInside(root, rel);
  const st = await checkPathChain(root, rel);
  if (st === undefined || !st.isFile()) return "changed-meanwhile";
  if (!(await removeHeld(abs, async (held) => hashContent(await readFile(held)) === expectedHash))) return "changed-meanwhile";
  // The unlink (or the last rmdir) is durable once the folder that held it is: in a session,
  // the cycle's flush fsyncs it before state.json records the removal, so a power loss cannot
  // bring back a file the state says is gone (it would read as a new local file, and be pushed).
  const holder = await removeEmptyParents(root, abs);
  options.session?.removedFrom.add(holder);
  return "removed";
}

/** The last backup made of each path (by the caller's lifetime): its content hash and file. */
export type BackupMemory = Map<string, { hash: string; path: string }>;

/**
 * Copies the current content of `rel` to `<backupsDir>/<stamp>/<rel>` atomically; when that
 * name already holds other content (a second backup in one run), `.1`, `.2`, ... are used.
 * With `memory`, a content already backed up (and still there) is not copied again: a path
 * whose write keeps failing gets one backup, not one per retry. With `session`, the
 * copy is not fsynced: the cycle's flush makes it durable with the files it wrote (a kill
 * leaves it whole either way: temp file, then rename).
 * Resolves the backup's path, or undefined when there is nothing to back up.
 */
export async function backupLocalFile(
  root: string,
  rel: string,
  backupsDir: string,
  stamp: string,
  options: { memory?: BackupMemory; session?: WriteSession } = {},
): Promise<string | undefined> {
  const { memory, session } = options;
  assertStamp(stamp);
  const current = await readLocalFile(root, rel);
  if (current === undefined) return undefined;
  const prior = memory?.get(rel);
  if (prior !== undefined && prior.hash === current.hash) {
    const kept = await readFile(prior.path).then(
      (b) => hashContent(b) === current.hash,
      () => false,
    );
    if (kept) return prior.path;
  }
  for (let n = 0; ; n++) {
    const candidate = backupPath(backupsDir, stamp, rel, n);
    const existing = await readFile(candidate).catch((err: unknown) => {
      if (isErrno(err, "ENOENT")) return undefined;
      throw err;
    });
    if (existing !== undefined && hashContent(existing) === current.hash) {
      memory?.set(rel, { hash: current.hash, path: candidate });
      return candidate;
    }
    if (existing === undefined) {
      // In a cycle (a session) the guarded writer makes its calls inline but the create, where
      // write-file-atomic's dozen trips through the thread pool stood before the pull's replace;
      // link(2) never takes a name another backup took meanwhile (then the next name is tried).
      if (session === undefined) await writeFileAtomically(candidate, current.bytes, { fsync: true });
      else if (
        !(await writeFileAtomicallyGuarded(candidate, current.bytes, {
          fsync: false,
          createOnly: true,
          knownDirs: session.dirs,
          deferFolderSync: () => undefined,
        }))
      )
        continue;
      session?.written.push(candidate);
      memory?.set(rel, { hash: current.hash, path: candidate });
      return candidate;
    }
  }
}

async function writeChecked(
  root: string,
  rel: string,
  content: string | Uint8Array,
  /** Replace only a file holding this content (checked without a window: replaceHeld). */
  expectedHash: string | undefined,
  options: { session?: WriteSession | undefined; createOnly?: boolean; after?: Promise<unknown> | undefined; keepHeld?: KeepHeld | undefined } = {},
): Promise<boolean> {
  const { session, after } = options;
  const createOnly = options.createOnly === true;
  const abs = resolveInside(root, rel);
  // A create-only write in a session asks nothing about the leaf, before or late: its create
  // (O_EXCL, or a temp file's link(2) when large) fails if anything (a file, a folder, a
  // symlink) holds the name, and the session's folders were seen to be real ones. Only a
  // refused create looks at what is there. A small one is written in place (create-in-place.ts).
  const lateCheck = !(createOnly && session !== undefined);
  const st = lateCheck ? await checkPathChain(root, rel, session?.dirs) : await checkPathChain(root, parentOf(rel), session?.dirs, { leafIsFolder: true });
  if (lateCheck && st !== undefined && !st.isFile()) throw new UnsafeLocalPathError(rel, "not-a-file", "it is not a regular file");
  const inPlace = !lateCheck && CREATE_IN_PLACE_SUPPORTED && fitsInline(content);
  // A file created in place takes its name at once: only after the journal listing it is saved
  // (`after`), so that a kill mid-create leaves a name the next start knows to remove.
  if (inPlace) await after;
  const written = inPlace
    ? await createInPlace(abs, content, (session.fileMode ??= defaultFileMode()), session.dirs)
    : await writeThroughTemp(root, rel, abs, content, { expectedHash, session, createOnly, lateCheck, after, keepHeld: options.keepHeld });
  if (written) session?.written.push(abs);
  else if (!lateCheck) {
    const there = await checkPathChain(root, rel, session?.dirs);
    if (there !== undefined && !there.isFile()) throw new UnsafeLocalPathError(rel, "not-a-file", "it is not a regular file");
  }
  return written;
}

/** writeChecked's temp-file write (writeFileAtomicallyGuarded): replaces, or creates a large file. */
function writeThroughTemp(
  root: string,
  rel: string,
  abs: string,
  content: string | Uint8Array,
  o: {
    expectedHash: string | undefined;
    session: WriteSession | undefined;
    createOnly: boolean;
    lateCheck: boolean;
    after: Promise<unknown> | undefined;
    keepHeld: KeepHeld | undefined;
  },
): Promise<boolean> {
  const { expectedHash, session } = o;
  return writeFileAtomicallyGuarded(abs, content, {
    beforeRename: !o.lateCheck
      ? undefined
      : async () => {
          // Parents were created by the writer; re-checking the chain catches a folder that was
          // swapped for a symlink while the temp file was written. Within a cycle (a session),
          // folders already seen are trusted and only the leaf is asked again.
          const now = await checkPathChain(root, rel, session?.dirs);
          if (now !== undefined && !now.isFile()) throw new UnsafeLocalPathError(rel, "not-a-file", "it is not a regular file");
          return true;
        },
    ...(expectedHash === undefined ? {} : { replaceIf: async (held: string) => hashContent(await readFile(held)) === expectedHash, keepHeld: o.keepHeld }),
    // In a session the cycle's flushWrites makes everything durable at once.
    ...(session === undefined ? {} : { fsync: false, knownDirs: session.dirs, deferFolderSync: () => undefined }),
    createOnly: o.createOnly,
    publishAfter: o.after,
  });
}

/** The folder part of a relative path ("" at the root). */
function parentOf(rel: string): string {
  const at = rel.lastIndexOf("/");
  return at < 0 ? "" : rel.slice(0, at);
}

async function currentHash(root: string, rel: string): Promise<string | undefined> {
  return (await readLocalFile(root, rel))?.hash;
}

/** Removes the folders `abs` leaves empty; resolves the folder that held the last entry removed. */
async function removeEmptyParents(root: string, abs: string): Promise<string> {
  const base = resolve(root);
  let dir = dirname(abs);
  for (; dir !== base && !relative(base, dir).startsWith(".."); dir = dirname(dir)) {
    try {
      // rmdir only succeeds on an empty folder: a file created there meanwhile keeps it.
      await rmdir(dir);
    } catch {
      return dir;
    }
  }
  return dir;
}
