/**
 * Every port of the engine, in one place: the local folder (LocalTree), the folder's `.mpsync/`
 * store (DesignStore, with its base texts), the change source of the daemon, and the base
 * moves the executor hands to the ledger. Real adapters: fs-adapters.ts (and watch/ for the
 * change source); in-memory ones for tests: test/support/memory-ports.ts. The service's port
 * is the V3Client of src/api/client-types.ts.
 */
import type { DaemonFile, SyncState } from "../state/state-schema.js";
import type { ConflictSides } from "../local/recovery-layout.js";

/** A local file as read right now. */
export interface LocalRead {
  hash: string;
  binary: boolean;
  hasMarkers: boolean;
  /** Decoded UTF-8 text; undefined when binary. */
  text: string | undefined;
}

/** A file as a scan saw it: no text; its modification time (epoch ms) where the tree has one. */
export interface ScannedLocal extends Omit<LocalRead, "text"> {
  mtimeMs?: number;
}

/**
 * Outcome of a compare-and-swap on a local file. "blocked": the path cannot hold a file
 * (a folder, or a symlink, is in the way); the file is left alone and reported.
 */
export type CasResult = "done" | "changed-meanwhile" | "blocked";

/** Options of LocalTree.replaceIfUnchanged. */
export interface ReplaceOptions {
  /** The text takes the name only once this resolves (a journal and a backup that must come first); its rejection fails the write. */
  after?: Promise<unknown>;
  /**
   * The file holds a local edit (a conflict's write replaces it): it is replaced only once its
   * writer is done with it, and a write landing on it afterwards is recovered and said
   * (src/local/late-writes.ts).
   */
  localEdit?: boolean;
}

/** The mapped folder, jailed: every `rel` is a checked relative `/` path. */
export interface LocalTree {
  readonly root: string;
  /** True when the mapped folder exists. */
  exists(): Promise<boolean>;
  /** Every syncable file (ignore rules applied, symlinks skipped) with hash and flags. */
  scan(): Promise<Map<string, ScannedLocal>>;
  /** What the last scan left out, and why (symlinks, special files, unreadable ones). */
  skipped(): SkippedPath[];
  /** Reads one file; undefined when absent (or not a regular file). */
  read(rel: string): Promise<LocalRead | undefined>;
  /** True when the path is excluded by the ignore rules. */
  ignores(rel: string): boolean;
  /**
   * Writes `text` only if the file's hash is still `expectHash` (undefined: must be absent).
   * With `after`, the text takes the name only once it resolves (a journal and a backup that
   * must come first); its rejection fails the write.
   */
  replaceIfUnchanged(rel: string, expectHash: string | undefined, text: string, options?: ReplaceOptions): Promise<CasResult>;
  /** Removes the file only if its hash is still `expectHash`. */
  removeIfUnchanged(rel: string, expectHash: string): Promise<CasResult>;
  /** Removes temp files a killed write left; only for the holder of the folder lock. */
  removeStaleTemps(): Promise<string[]>;
  /**
   * Ends the watch of the files a write over a local edit replaced (src/local/late-writes.ts): a
   * late write found now is recovered and said, and no held file is left. Before the folder's
   * lock is let go (a daemon stopping); a tree without such a watch has none.
   */
  endHolds?(): Promise<void>;
  /**
   * Removes those of `paths` that a killed create left half-written (local/create-in-place.ts:
   * mode 000); resolves them. Only for the holder of the folder lock.
   */
  removeIncomplete(paths: readonly string[]): Promise<string[]>;
  /** Starts a cycle's writes: what the last cycle learned about folders is forgotten. */
  beginWrites(): void;
  /**
   * Makes the writes done so far durable, all at once (src/local/write-session.ts). The engine
   * calls it before a save that may name what those writes put down as bases.
   */
  flush(): Promise<void>;
  /** Copies the current content under .mpsync/backups/<stamp>/ (no-op when absent). */
  backup(rel: string, stamp: string): Promise<void>;
}

/** Content-addressed store of base texts (a 3-way merge needs them). */
export interface BaseTexts {
  getBase(hash: string): Promise<string | undefined>;
  putBase(text: string): Promise<string>;
}

/**
 * What the engine persists per folder in state.json, as the state schema declares it (one
 * declaration: src/state/state-schema.ts). Each part has one owner: the BaseLedger
 * (base-ledger.ts) the bases and journals (`files`, `pending`, `pendingPush`, `landed`), the
 * FolderStatus (folder-status.ts) `artifactId`, `halted` and the refusals; DesignSync the design
 * it maps (`editorId`, `sourceDesign`). Unknown fields a newer release wrote are kept as read.
 */
export type PersistedState = Omit<SyncState, "version" | "scanCache" | "lastStatus" | "lastError">;

/** The part of the persisted state the BaseLedger owns: bases and their journals. */
export type LedgerData = Pick<PersistedState, "files" | "pending" | "pendingPush" | "landed" | "unanswered">;

/** What daemon.json holds: the daemon's last status and error (daemon-record.ts owns it). */
export type DaemonRecordData = DaemonFile;

/** Load/save of the state plus the base-text, conflict and backup areas. */
export interface DesignStore extends BaseTexts {
  /** state.json and daemon.json (a state.json of an older release may hold the latter's fields). */
  load(): Promise<{ state: PersistedState; daemon: DaemonRecordData; recovered?: "missing" | "corrupt" | undefined }>;
  /**
   * Persists state.json (and a scan cache that learned something). `durable: false` (the
   * intent journals, written just before a write goes out): no fsync; the rename alone
   * survives a killed process, and the cycle's flush makes it durable before the state that
   * names the new bases. @default durable: true
   */
  save(state: PersistedState, options?: { durable?: boolean }): Promise<void>;
  /** Persists daemon.json. */
  saveDaemon(record: DaemonRecordData): Promise<void>;
  saveConflict(rel: string, sides: ConflictSides, stamp: string): Promise<void>;
  pruneBases(keep: ReadonlySet<string>): Promise<void>;
  /** Stores many base texts at once (a pull: one pack instead of a file each); resolves their hashes in order. */
  putBases(texts: readonly string[]): Promise<string[]>;
  /** True when a derived cache (e.g. the scan cache) learned something a save would keep; false for a store with none. */
  hasUnsavedCache(): boolean;
  /**
   * Takes the user's requests for a new version recorded since the last call (`prompt`,
   * `checkout`: state/version-intent.ts), each with what had gone out before it. A store
   * without them (in memory) has none.
   */
  takeVersionIntents?(): Promise<AskedVersion[]>;
}

/** What had gone out when the user asked for a version (state/version-intent.ts). */
export interface AskedVersion {
  /** path -> hash sent by each PATCH answered before the user asked. */
  landed: Record<string, string>;
  /** `checkout` only: path -> hashes of our texts sent without an answer before the user chose a version. */
  unanswered?: Record<string, string[]>;
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

/** A path the last scan left out, and why. */
export interface SkippedPath {
  path: string;
  reason: string;
  /** False for what never syncs by design (a symbolic link, a socket): listed, not a failure. */
  needsAttention: boolean;
}
