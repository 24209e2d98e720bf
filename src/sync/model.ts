/**
 * Data model of the pure sync core. Paths are relative, `/`-separated, already jailed
 * (src/local/path-jail.ts). Hashes are sha256 hex of the file's UTF-8 bytes (hash.ts).
 */

/** What conflicts resolve to (README, "How sync works"). */
export type ConflictPolicy = "merge" | "keep-local" | "keep-remote";

/** A local file as scanned. */
export interface LocalFile {
  hash: string;
  /** Binary or invalid UTF-8: never pushed. */
  binary: boolean;
  /** Contains git-style conflict markers written by mpsync: never pushed. */
  hasMarkers: boolean;
}

/** A remote file as read from the active artifact. */
export interface RemoteFile {
  hash: string;
}

/** The three views of one path. `undefined` means absent on that side / no base recorded. */
export interface FileTriple {
  path: string;
  base: string | undefined;
  local: LocalFile | undefined;
  remote: RemoteFile | undefined;
  /**
   * The local text is not the one last synced, though it may equal `base`: a race's triple is
   * judged against what our PATCH replaced (races.ts), and a file saved back to that text is
   * still an edit here. A pull over it is a write over a local edit (ReplaceOptions.localEdit).
   */
  localEdited?: true;
}

/** One decision for one path. Executed by the executor with compare-and-swap on both sides. */
export type FileAction =
  /** Send local content (PATCH). `expectLocal` is the hash the executor must still find. */
  | { kind: "push"; path: string; expectLocal: string; reason: "local-changed" | "local-new" | "modify-beats-delete" }
  /** Write remote content locally (backing up what it replaces). */
  | {
      kind: "pull";
      path: string;
      remoteHash: string;
      expectLocal: string | undefined;
      reason: "remote-changed" | "remote-new" | "modify-beats-delete";
      /** The file holds a local edit (FileTriple.localEdited): written only once its writer is done. */
      overLocalEdit?: true;
    }
  /** Remote removed the file and local is unchanged: back up and remove the local copy. */
  | { kind: "remove-local"; path: string; expectLocal: string }
  /** Both sides agree on new content (or both gone): move the base only. */
  | { kind: "record-base"; path: string; hash: string | undefined }
  /**
   * Both changed differently: resolve by policy. `base` undefined = no common ancestor.
   * `localBlocked` set: the local file can never be pushed (binary, or still holds markers), so
   * it is not merged or pushed; see resolveConflict in merge.ts.
   */
  | {
      kind: "conflict";
      path: string;
      policy: ConflictPolicy;
      base: string | undefined;
      localHash: string;
      remoteHash: string;
      localBlocked?: LocalBlock;
      /** Planned in pull-only mode: the merge is written locally, not sent (it waits for the next push). */
      waitToPush?: true;
    }
  /** Nothing to do but tell the user. */
  | { kind: "report"; path: string; reason: ReportReason };

/** Why a local file can never be pushed as it is. */
export type LocalBlock = "binary" | "markers";

/** Why a path is only reported. */
export type ReportReason =
  | "deleted-locally"
  | "binary-not-pushed"
  | "unresolved-markers"
  | "remote-name-refused"
  /** `pull` only brings changes in: this local change waits for `push` or `watch`. */
  | "waiting-to-push";

/** Why a whole design stops (circuit breakers, README, "How sync works"). */
export type HaltReason =
  | { kind: "mass-delete"; removing: number; localFiles: number }
  | { kind: "remote-empty" }
  | { kind: "folder-missing" }
  | { kind: "folder-emptied"; baseFiles: number };

/** The result of reconciling one design. */
export interface SyncPlan {
  actions: FileAction[];
  /** Set when a breaker tripped; then `actions` must not be executed. */
  halt: HaltReason | undefined;
}

/**
 * Which way a cycle syncs. `pull-only` (`mpsync pull`) brings changes in and sends nothing: a
 * local change is reported as waiting to be pushed, and a conflict's merge is written locally
 * for the next push to send.
 */
export type SyncMode = "two-way" | "pull-only";

/** Inputs of a whole-design reconcile. */
export interface ReconcileInput {
  files: FileTriple[];
  policy: ConflictPolicy;
  /** @default "two-way" */
  mode?: SyncMode;
  /** `pull --force`: breakers do not trip. */
  force: boolean;
  /**
   * `pull --force` past an emptied or vanished folder: files deleted locally whose remote is
   * unchanged are written again (the way back), not reported as "deleted locally".
   */
  restoreDeleted?: boolean;
  /** The mapped folder exists. */
  folderExists: boolean;
  /**
   * Every path of the design is in `files` (a full pull), not just the files about to be
   * pushed. Either way a triple's `remote` undefined must mean "not in the artifact listing",
   * never "not read": it is what drives remove-local and forgetting a base.
   */
  fullRemote: boolean;
  /*
   * Whole-design totals for the breakers, for when `files` covers only some paths (a push-time
   * cycle). Left out, each is counted from `files`; the local total is then trusted only when
   * `fullRemote` (a partial cycle would otherwise look like an emptied folder).
   */
  /** Files in the mapped folder. */
  localFileCount?: number;
  /** Paths with a recorded base. */
  baseFileCount?: number;
  /** Files in the active artifact (refused names included: such an artifact is not empty). */
  remoteFileCount?: number;
}

/** One-line human description of a halt reason. */
export function describeHalt(reason: HaltReason): string {
  switch (reason.kind) {
    case "mass-delete":
      return `the pull would remove ${reason.removing} of ${reason.localFiles} local files (more than half)`;
    case "remote-empty":
      return "the remote active artifact has no files";
    case "folder-missing":
      return "the mapped folder is missing";
    case "folder-emptied":
      return `the mapped folder was emptied (${reason.baseFiles} synced files are gone)`;
  }
}
