/**
 * Every port of the engine, in one place: the local folder (LocalTree), the folder's `.mpsync/`
 * store (DesignStore, with its base texts), the change source of the daemon, and the base
 * moves the executor hands to the ledger. Real adapters: fs-adapters.ts (and watch/ for the
 * change source); in-memory ones for tests: test/support/memory-ports.ts. The service's port
 * is the V3Client of src/api/client-types.ts.
 */
import type { SyncState } from "../state/state-schema.js";
import type { ConflictSides } from "../local/recovery-layout.js";

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
  /** Starts a cycle's writes: what the last cycle learned about folders is forgotten. */
  beginWrites?(): void;
  /** Makes the writes done so far durable, all at once (src/local/write-session.ts). */
  flush?(): Promise<void>;
  /** Copies the current content under .mpsync/backups/<stamp>/ (no-op when absent). */
  backup(rel: string, stamp: string): Promise<void>;
}

/** Content-addressed store of base texts (a 3-way merge needs them). */
export interface BaseTexts {
  getBase(hash: string): Promise<string | undefined>;
  putBase(text: string): Promise<string>;
}

/**
 * What the engine persists per folder, as the state schema declares it (one declaration:
 * src/state/state-schema.ts). The fs adapter writes the bases and journals to state.json and
 * the daemon's last status and error to daemon.json. The base fields (`files`, `pending`,
 * `pendingPush`, `landed`) are written only through the BaseLedger (base-ledger.ts).
 */
export type PersistedState = Omit<SyncState, "version" | "scanCache">;

/** Load/save of the state plus the base-text, conflict and backup areas. */
export interface DesignStore extends BaseTexts {
  load(): Promise<{ state: PersistedState; recovered?: "missing" | "corrupt" | undefined }>;
  /**
   * Persists the state. `durable: false` (the intent journals, written just before a write
   * goes out): no fsync; the rename alone survives a killed process, and the cycle's flush
   * makes it durable before the state that names the new bases. @default durable: true
   */
  save(state: PersistedState, options?: { durable?: boolean }): Promise<void>;
  saveConflict(rel: string, sides: ConflictSides, stamp: string): Promise<void>;
  pruneBases(keep: ReadonlySet<string>): Promise<void>;
  /** Stores many base texts at once (a pull: one pack instead of a file each); in order. */
  putBases?(texts: readonly string[]): Promise<string[]>;
  /** True when a derived cache (e.g. the scan cache) learned something a save would keep. */
  hasUnsavedCache?(): boolean;
}

/** One confirmed change of a path's base (undefined: the path has no base any more). */
export interface BaseMove {
  path: string;
  hash: string | undefined;
}

/** A started change source (src/watch/chokidar-source.ts). */
export interface ChangeSourceHandle {
  ready: Promise<void>;
  flush(): void;
  close(): Promise<void>;
}
