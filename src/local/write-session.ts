/**
 * One sync cycle's writes into a mapped folder: what the cycle learned once instead
 * of asking the kernel again per file, and the single durability flush at its end.
 *
 * Durability strategy (power loss; a killed process is already covered by temp files and
 * rename/link): files are written without an fsync each. Before the cycle saves the state that
 * names them as bases, `flushWrites` makes them durable in one go: on Linux, with more than a
 * few files, one `syncfs(2)` of the folder's file system (`sync --file-system`, coreutils),
 * like git's batch fsync mode; else, or when that fails, an fsync per written file (in
 * parallel) and one per folder. Removals join the same flush: the folder that held each removed
 * file is fsynced with the others (syncfs covers them too). So state.json never names a base its
 * file could lose, nor records a removal a power loss could undo.
 */
import { dirname } from "node:path";
import { fsyncPath } from "./atomic-write.js";
import { mapBounded } from "./bounded.js";

/** Files written at once by the fsync fallback. */
const FSYNC_CONCURRENCY = 16;
/** Below this many files, fsyncs cost less than starting `sync`. */
export const SYNCFS_MIN_FILES = 32;

/** Per-cycle knowledge of a folder's writes. */
export interface WriteSession {
  /** Absolute folders created or seen to be real folders (not symlinks) during this cycle. */
  readonly dirs: Set<string>;
  /** Absolute files written (not yet durable). */
  readonly written: string[];
  /** Absolute folders a removal unlinked from (not yet durable). */
  readonly removedFrom: Set<string>;
  /** The mode of a new file (0666 less the umask), read once per session when needed. */
  fileMode?: number;
}

/** A fresh session (one per cycle). */
export function newWriteSession(): WriteSession {
  return { dirs: new Set(), written: [], removedFrom: new Set() };
}

/** How a flush reaches the disk; tests may record the fsyncs (`fsync`) or rule out syncfs. */
export interface FlushOptions {
  /** Try one syncfs(2) for many files. @default true on Linux */
  syncfs?: boolean;
  /** fsync of a file or folder. @default fsyncPath */
  fsync?: (path: string) => Promise<void>;
}

/** How the last flush made the writes durable (for tests and benchmarks). */
export type FlushMethod = "none" | "syncfs" | "fsync";

/** Makes every write of the session durable, then forgets them (see the strategy above). */
export async function flushWrites(session: WriteSession, options: FlushOptions = {}): Promise<FlushMethod> {
  const files = session.written.splice(0);
  const removedFrom = [...session.removedFrom];
  session.removedFrom.clear();
  session.dirs.clear();
  if (files.length + removedFrom.length === 0) return "none";
  const useSyncfs = (options.syncfs ?? process.platform === "linux") && files.length + removedFrom.length >= SYNCFS_MIN_FILES;
  if (useSyncfs && (await syncFileSystem(files[0] ?? removedFrom[0]!))) return "syncfs";
  const fsync = options.fsync ?? fsyncPath;
  await mapBounded(files, FSYNC_CONCURRENCY, (f) => fsync(f));
  for (const dir of new Set([...files.map((f) => dirname(f)), ...removedFrom])) await fsync(dir);
  return "fsync";
}

/** `sync --file-system PATH`: one syncfs(2); false when it is unavailable or failed. */
function syncFileSystem(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    // Loaded here, not at import: loading node:child_process would slow every command's start.
    process.getBuiltinModule("node:child_process").execFile("sync", ["--file-system", path], { timeout: 60_000 }, (err) => resolve(err === null));
  });
}
