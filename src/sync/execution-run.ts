/**
 * The executor's types: what a run takes (ExecuteInput, ExecuteDeps), what it returns
 * (ExecuteResult), and the context one run of executePlan hands its parts (ExecutionRun):
 * local-actions.ts applies the local writes, push-parts.ts sends the pushes.
 */
import type { FileWrite } from "../api/schemas.js";
import type { SyncPlan } from "./model.js";
import type { BaseMove, BaseTexts, LocalTree } from "./ports.js";

/** What the executor needs from the outside world. */
export interface ExecuteDeps {
  local: LocalTree;
  bases: BaseTexts;
  /** PATCH the active artifact; resolves when the service confirmed the write. */
  writeRemote(files: FileWrite[]): Promise<void>;
  /**
   * The texts of `paths` on the artifact the run pushes to, read now (a path it does not hold is
   * absent). A PATCH after the run's first one reads its files again first (push-parts.ts).
   */
  readRemote(paths: string[]): Promise<ReadonlyMap<string, string>>;
  /** The names of the artifact the run pushes to, listed now; undefined once it is no longer the active one. */
  listRemote(): Promise<ReadonlySet<string> | undefined>;
  saveConflict(rel: string, sides: { local?: string; remote?: string; base?: string }, stamp: string): Promise<void>;
  /** Label for the remote side of conflict markers, e.g. "remote v7". */
  remoteLabel(): Promise<string>;
  /**
   * The journal of this run's pulls (BaseLedger.intendPulls), written while the local writes
   * prepare: a write takes its name, and a file is removed, only once it is done.
   */
  journaled?: Promise<void>;
  /** Names of this folder's backup/conflict sub-folder for this run. */
  stamp: string;
  hashOf(text: string): string;
  /** Bytes of file text per PATCH. @default PUSH_PART_BYTES */
  pushPartBytes?: number;
  /** Told after each action that changes something (not reports), with the total: a progress bar. */
  progress?(done: number, total: number): void;
}

/** Inputs beside the plan: the texts read for it. */
export interface ExecuteInput {
  plan: SyncPlan;
  localTexts: ReadonlyMap<string, string>;
  remoteTexts: ReadonlyMap<string, string>;
  /** Remote names of the active artifact (to tell a new file from a replaced one). */
  remoteNames: ReadonlySet<string>;
  /** The content hash of `path` the service refused (not sent again until it changes; FolderStatus). */
  refused(path: string): string | undefined;
}

/** What happened. */
export interface ExecuteResult {
  /** The base moves this run confirmed, in the order they happened (a later one wins). */
  bases: BaseMove[];
  pushed: string[];
  pulled: string[];
  removed: string[];
  /** `line`: 1-based line of the first conflict marker written (unresolved merges only). */
  conflicts: { path: string; unresolved: boolean; policy: string; line?: number }[];
  /** Left alone because the local file changed while the cycle ran. */
  changedMeanwhile: string[];
  /** Files the service refused, reported once per content. */
  refused: RefusedPush[];
  /** path -> content hash of each file refused this run (FolderStatus.noteContent records it). */
  refusedContent: Map<string, string>;
  /** Remote files that could not be written: a local folder or symlink holds the path. */
  blocked: string[];
  /** The PATCH failed (kept pending; the base did not move for those files). */
  pushError: unknown;
  /**
   * Merged locally but not sent (a pull-only plan's conflict, `waitToPush`): its base is the
   * remote side, so the next push (or watch) sends it.
   */
  notSent: string[];
  /**
   * Not sent: the remote text changed after the cycle read it (found by the read before a PATCH
   * after the run's first: a later part, a re-send after a 413 or a 400). The caller plans them again.
   */
  remoteMoved: string[];
  /** Local paths whose write failed (permissions, a full disk, a folder in the way): retried by a later cycle. */
  failed: { path: string; code: string; message: string }[];
}

/** A result with nothing done yet (a run fills it in). */
export function emptyExecuteResult(): ExecuteResult {
  return {
    bases: [],
    pushed: [],
    pulled: [],
    removed: [],
    conflicts: [],
    changedMeanwhile: [],
    refused: [],
    refusedContent: new Map(),
    blocked: [],
    pushError: undefined,
    notSent: [],
    remoteMoved: [],
    failed: [],
  };
}

/** A file the service would not take: a new name refused (400), or too large alone (413). */
export interface RefusedPush {
  path: string;
  reason: "new-name" | "too-large";
}

/** A text a run will send, gathered while the local actions run. */
export interface PendingPush {
  path: string;
  text: string;
}

/** One run of executePlan: its inputs and ports, what it did so far, and the pushes it gathered. */
export interface ExecutionRun extends ExecuteInput, ExecuteDeps {
  readonly result: ExecuteResult;
  readonly pushes: PendingPush[];
  /** Bytes of text per PATCH, lowered by a 413 (push-parts.ts pushHalves) for the parts after it. */
  partBytes: number;
  /** PATCHes tried so far (answered or not): every one after the first reads its files again. */
  patches: number;
}
