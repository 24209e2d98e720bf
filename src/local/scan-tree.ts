/**
 * Walks a mapped folder and hashes every syncable file. Ignored folders are never entered,
 * symlinks are never followed (reported instead), and unchanged files are answered from a
 * ScanCache with a single lstat, so the start-up reconcile of a large tree stays fast.
 */
import { constants, lstatSync, type Dirent, type Stats } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { decodeUtf8Strict, hashContent } from "../core/hash.js";
import { hasConflictMarkers } from "../core/markers.js";
import { mapBounded } from "./bounded.js";
import type { IgnoreMatcher } from "./ignore-rules.js";
import { checkPathChain, resolveInside, UnsafeLocalPathError } from "./safe-path.js";
import type { ScanCache } from "./scan-cache.js";
import { isErrno, errnoCode } from "../core/errors.js";

/** One scanned file. */
export interface ScannedFile {
  /** sha256 hex of the bytes. */
  hash: string;
  /** Binary or invalid UTF-8 (never pushed). */
  binary: boolean;
  /** Holds mpsync conflict markers (never pushed). */
  hasMarkers: boolean;
  size: number;
  mtimeMs: number;
  /** The decoded text; only with `withText`, and only for text files. */
  text?: string;
}

/** Why a path was left out of a scan. */
export type SkipReason = "symlink" | "not-a-file" | "unreadable";

/** Scan options. */
export interface ScanOptions {
  /** Also return each text file's content (bypasses the cache: content must be read). */
  withText?: boolean;
  /** Files read at once. @default 32 */
  concurrency?: number;
  /** Told about every non-ignored path that is not scanned, with the reason. */
  onSkip?: (rel: string, reason: SkipReason) => void;
  /** Told about every file actually read and hashed (a cache miss). */
  onRead?: (rel: string) => void;
  /** Wall clock for the cache's racy-read check. @default Date.now */
  now?: () => number;
}

/** A local file read in full. */
export interface LocalFileContent {
  bytes: Uint8Array;
  hash: string;
  binary: boolean;
  hasMarkers: boolean;
  /** Decoded UTF-8; undefined when binary. */
  text: string | undefined;
}

/** Files read in parallel by default: enough to hide disk latency, far below fd limits. */
export const DEFAULT_SCAN_CONCURRENCY = 32;

// Windows has no O_NOFOLLOW; there the lstat checks are the only guard. O_NONBLOCK keeps a
// FIFO swapped in after the lstat from blocking the open forever (no effect on regular files).
const OPEN_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Scans `root` into relative `/` path -> ScannedFile (sorted by path). With a cache, unchanged
 * files are not read, and the cache is updated in place (vanished paths dropped). Rejects when
 * `root` itself cannot be read (the caller decides whether a missing folder is a halt).
 */
export async function scanTree(root: string, matcher: IgnoreMatcher, cache?: ScanCache, options: ScanOptions = {}): Promise<Map<string, ScannedFile>> {
  const candidates: string[] = [];
  await walk(root, "", matcher, candidates, options.onSkip, true);
  candidates.sort();
  const scanned = await mapBounded(candidates, options.concurrency ?? DEFAULT_SCAN_CONCURRENCY, (rel) => scanFile(root, rel, cache, options));
  const result = new Map<string, ScannedFile>();
  for (const [i, rel] of candidates.entries()) {
    const file = scanned[i];
    if (file !== undefined) result.set(rel, file);
  }
  cache?.retainOnly(new Set(result.keys()));
  return result;
}

async function walk(root: string, prefix: string, matcher: IgnoreMatcher, out: string[], onSkip: ScanOptions["onSkip"], isRoot = false): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(prefix === "" ? root : join(root, ...prefix.split("/")), { withFileTypes: true });
  } catch (err) {
    const code = errnoCode(err);
    // A sub-folder that vanished mid-walk is simply gone; the watcher reports the removal.
    if (isRoot || (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EACCES" && code !== "EPERM")) throw err;
    if (code === "EACCES" || code === "EPERM") onSkip?.(prefix, "unreadable");
    return;
  }
  for (const entry of entries) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!matcher.ignores(rel, true)) await walk(root, rel, matcher, out, onSkip);
    } else if (matcher.ignores(rel)) {
      continue;
    } else if (entry.isFile()) {
      out.push(rel);
    } else {
      onSkip?.(rel, entry.isSymbolicLink() ? "symlink" : "not-a-file");
    }
  }
}

async function scanFile(root: string, rel: string, cache: ScanCache | undefined, options: ScanOptions): Promise<ScannedFile | undefined> {
  const abs = join(root, ...rel.split("/"));
  const st = lstatOrUndefined(abs);
  if (st === undefined) return undefined;
  if (st.isSymbolicLink() || !st.isFile()) {
    // Replaced between readdir and lstat.
    options.onSkip?.(rel, st.isSymbolicLink() ? "symlink" : "not-a-file");
    return undefined;
  }
  if (cache !== undefined && options.withText !== true) {
    const hit = cache.lookup(rel, st);
    if (hit !== undefined) return { hash: hit.hash, binary: hit.binary, hasMarkers: hit.hasMarkers, size: st.size, mtimeMs: st.mtimeMs };
  }
  const startedAt = (options.now ?? Date.now)();
  let read: Awaited<ReturnType<typeof readNoFollow>>;
  try {
    read = await readNoFollow(abs);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "EACCES" || code === "EPERM") {
      options.onSkip?.(rel, "unreadable");
      return undefined;
    }
    throw err;
  }
  if (read === "symlink" || read === "not-a-file") {
    options.onSkip?.(rel, read);
    return undefined;
  }
  if (read === undefined) return undefined;
  options.onRead?.(rel);
  const content = describeBytes(read.bytes);
  const { stat } = read;
  cache?.remember(
    rel,
    {
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ctimeMs: stat.ctimeMs,
      ino: stat.ino,
      hash: content.hash,
      binary: content.binary,
      hasMarkers: content.hasMarkers,
    },
    startedAt,
  );
  const file: ScannedFile = { hash: content.hash, binary: content.binary, hasMarkers: content.hasMarkers, size: stat.size, mtimeMs: stat.mtimeMs };
  if (options.withText === true && content.text !== undefined) file.text = content.text;
  return file;
}

/**
 * Reads one file of the folder. Undefined when absent or not a regular file; throws
 * UnsafeLocalPathError when the path or one of its parents is a symlink or leaves `root`.
 */
export async function readLocalFile(root: string, rel: string): Promise<LocalFileContent | undefined> {
  const abs = resolveInside(root, rel);
  const st = await checkPathChain(root, rel);
  if (st === undefined || !st.isFile()) return undefined;
  // O_NOFOLLOW closes the gap between the lstat above and the open for the leaf itself.
  const read = await readNoFollow(abs);
  if (read === "symlink") throw new UnsafeLocalPathError(rel, "symlink", "it is a symlink");
  if (read === undefined || read === "not-a-file") return undefined;
  return { bytes: read.bytes, ...describeBytes(read.bytes) };
}

/** Hash, binary flag, marker flag and text of some bytes. */
export function describeBytes(bytes: Uint8Array): Omit<LocalFileContent, "bytes"> {
  const text = decodeUtf8Strict(bytes);
  return { hash: hashContent(bytes), binary: text === undefined, hasMarkers: text !== undefined && hasConflictMarkers(text), text };
}

/** Opens without following a final symlink; the stat is taken before the read. */
async function readNoFollow(
  abs: string,
): Promise<{ bytes: Buffer; stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number } } | "symlink" | "not-a-file" | undefined> {
  let handle;
  try {
    handle = await open(abs, OPEN_NO_FOLLOW);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    if (code === "ELOOP") return "symlink";
    if (code === "EISDIR") return "not-a-file";
    throw err;
  }
  try {
    // fstat before reading: a write racing the read then always moves mtime past the stat we
    // cache, so the next scan reads the file again.
    const stat = await handle.stat();
    if (!stat.isFile()) return "not-a-file";
    const bytes = await handle.readFile();
    return { bytes, stat };
  } finally {
    await handle.close();
  }
}

function lstatOrUndefined(abs: string): Stats | undefined {
  // Synchronous on purpose: a cached file costs one lstat, and through the thread pool each
  // costs several times the call itself in queueing and promise work (BENCHMARKS.md, "Figures
  // behind the code's choices"). Reads stay asynchronous.
  try {
    return lstatSync(abs, { throwIfNoEntry: false });
  } catch (err) {
    if (isErrno(err, "ENOTDIR")) return undefined;
    throw err;
  }
}
