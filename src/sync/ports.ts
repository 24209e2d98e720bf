/**
 * The engine's view of the local folder: a small port so the reconcile/execute loop can run
 * against the real file system (fs-adapters.ts) or an in-memory tree in unit tests.
 */

/** A local file as read right now. */
export interface LocalRead {
  hash: string;
  binary: boolean;
  hasMarkers: boolean;
  /** Decoded UTF-8 text; undefined when binary. */
  text: string | undefined;
}

/**
 * Outcome of a compare-and-swap on a local file. "blocked": the path cannot hold a file
 * (a folder, or a symlink, is in the way); the file is left alone and reported.
 */
export type CasResult = "done" | "changed-meanwhile" | "blocked";

/** The mapped folder, jailed: every `rel` is a checked relative `/` path. */
export interface LocalTree {
  readonly root: string;
  /** True when the mapped folder exists. */
  exists(): Promise<boolean>;
  /** Every syncable file (ignore rules applied, symlinks skipped) with hash and flags. */
  scan(): Promise<Map<string, Omit<LocalRead, "text">>>;
  /** What the last scan left out, and why (symlinks, special files, unreadable ones). */
  skipped?(): { path: string; reason: string }[];
  /** Reads one file; undefined when absent (or not a regular file). */
  read(rel: string): Promise<LocalRead | undefined>;
  /** True when the path is excluded by the ignore rules. */
  ignores(rel: string): boolean;
  /** Writes `text` only if the file's hash is still `expectHash` (undefined: must be absent). */
  replaceIfUnchanged(rel: string, expectHash: string | undefined, text: string): Promise<CasResult>;
  /** Removes the file only if its hash is still `expectHash`. */
  removeIfUnchanged(rel: string, expectHash: string): Promise<CasResult>;
  /** Removes temp files a killed write left; only for the holder of the folder lock. */
  removeStaleTemps?(): Promise<string[]>;
  /** Makes the writes done so far durable (one folder fsync per folder written). */
  flush?(): Promise<void>;
  /** Copies the current content under .mpsync/backups/<stamp>/ (no-op when absent). */
  backup(rel: string, stamp: string): Promise<void>;
}
