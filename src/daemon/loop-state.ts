/**
 * The daemon loop's vocabulary (worker-loop.ts): what it remembers between events (LoopState),
 * what can happen to it (LoopEvent), what it asks the worker to do (Effect), and its settings.
 */
import type { DesignStatus } from "../api/schemas.js";
import type { Backoff } from "../scheduling/backoff.js";
import type { CycleReport } from "../sync/design-sync.js";
import type { EventBody } from "../sync/events.js";
import type { FailureClass } from "../sync/failure.js";

/** The loop's settings (from .syncrc). */
export interface LoopConfig {
  /** The folder as the daemon's lines name it (config/mappings.ts `folderLabel`). */
  label: string;
  publishOnPush: boolean;
  /** How often an idle design's remote contents are read (in-place edits move no id). */
  remoteCheckMs: number;
  retry: Backoff;
}

/** Everything the loop remembers between events. */
export interface LoopState {
  stopped: boolean;
  /** The last status said a generation runs: cycles wait. */
  generating: boolean;
  /** The next cycle reads every remote file (start-up, a new version, a due content check). */
  needsFullSync: boolean;
  /** The full sync is due only for the content check (a slice of the files is read). */
  checkOnly: boolean;
  /** Local paths waiting to be pushed. */
  pending: ReadonlySet<string>;
  /** A git operation holds the repository; one waiter resumes the loop when it ends. */
  waitingForGit: boolean;
  /** Failed cycles in a row (the backoff's exponent). */
  failures: number;
  retryArmed: boolean;
  /** A content check is due once the race window of the last push has passed (other-writers.ts). */
  confirmArmed: boolean;
  /** Code of the failure last said (an outage is said once, then "back online"). */
  lastErrorCode: string | undefined;
  /** "nothing to pull yet" said once per stretch without a version. */
  noArtifactNoted: boolean;
  /** When the last full sync ran (monotonic clock ms). */
  lastRemoteRead: number;
  /** When a status was last persisted (monotonic clock ms). */
  lastStatusSave: number;
  /** File names of the remote version last synced. */
  remoteNames: readonly string[];
  /** Watcher failures already said (by code): each is said once. */
  watcherErrors: readonly string[];
  /** Held by `mpsync pause`: no cycle runs (local changes gather in pending) until resume. */
  paused: boolean;
  /** The version the last status answer named, until a cycle uses it: its list spares an active-artifact call. */
  named: NamedVersion | undefined;
  /**
   * A remote read sent ahead of the cycle that takes it: the start-up read (sent while the
   * watcher gets ready) or the read of a new version (sent as the status answer naming it arrived).
   */
  readAhead: ReadAhead | undefined;
}

/** A version as a status answer names it: its id and file list. */
export interface NamedVersion {
  artifactId: string;
  files: string[];
}

/** Which remote read is out ahead of its cycle. */
export type ReadAhead = { of: "start-up" } | { of: "version"; artifactId: string };

/** A `mpsync sync` asked of the worker: its id (the answer names it) and whether the folder was halted then. */
export interface SyncRequest {
  id: number;
  wasHalted: boolean;
}

/** What a `mpsync sync` came to, as the loop knows it (the worker adds the cycle's report). */
export type SyncAnswer = { ok: true; haltCleared: boolean } | { ok: false; code: string; message: string };

/** The cycle a decision runs: a content check, a full sync, or a push pass. */
export type CycleEffect = Extract<Effect, { do: "full-sync" | "push" }>;

/** An event, without the `dir` and `editorId` the worker adds. */
export type LoopEmit = EventBody;

/** What the worker must do, in order. */
export type Effect =
  | { do: "emit"; event: LoopEmit }
  | { do: "set-status"; status: { isGenerating: boolean; activeArtifactId: string | null; at: number } }
  /** Persist state (awaited). */
  | { do: "save" }
  /** Queue a cycle behind the running ones. */
  | { do: "enqueue-cycle" }
  /**
   * Send a remote read ahead of its cycle: the active version's (start-up), or `version`'s (a
   * status answer named a version new to the folder). The read changes nothing on the service.
   */
  | { do: "read-ahead"; version?: NamedVersion }
  /** Forget the read sent ahead: no cycle takes it. */
  | { do: "drop-read-ahead" }
  /** Only the content check is due: DesignSync.checkRemote reads a slice (check-scope.ts); `listed` spares the active-artifact call. */
  | { do: "full-sync"; check: true; listed?: NamedVersion }
  /**
   * DesignSync.fullSync: `readAhead` takes the read sent ahead, `active` is a new version a
   * status answer named (no active-artifact call), `force` proceeds past the circuit breakers,
   * `request` is the `mpsync sync` this cycle answers.
   */
  | { do: "full-sync"; check?: undefined; readAhead: boolean; active?: NamedVersion; force: boolean; request?: SyncRequest }
  | { do: "push"; paths: ReadonlySet<string> }
  /** Answer the `mpsync sync` `request` (a full sync ran, or why none did). */
  | { do: "answer-sync"; request: number; answer: SyncAnswer }
  /** Wait (off the chain) until git is done, then send `git-free` or `git-wait-ended`. */
  | { do: "wait-git" }
  | { do: "arm-retry"; delayMs: number }
  /** A content check after a push's race window: it confirms the push, so a later removal is a decision. */
  | { do: "arm-confirm"; delayMs: number }
  | { do: "record-error"; code: string; message: string }
  | { do: "clear-error" }
  | { do: "after-pull" }
  | { do: "publish" }
  /** Free the big cycle's garbage once the daemon is quiet (src/core/heap.ts). */
  | { do: "settle-heap" }
  | { do: "halt" }
  | { do: "close-source" }
  /** This design stopped for good (no access, lock gone): tell the daemon, which may have no folder left. */
  | { do: "stopped" }
  | { do: "fatal" }
  | { do: "log"; level: "info" | "debug"; message: string; fields: Record<string, unknown> };

/** What can happen to the loop. */
export type LoopEvent =
  /** The worker opened the design; its watcher is not ready yet (the start-up read may go out now). */
  | { type: "opened"; generating: boolean; gitBusy: boolean }
  /** The watcher is ready. */
  | { type: "start"; generating: boolean }
  /** The start-up cycle ran (or was held): the daemon is ready unless it stopped. */
  | { type: "ready" }
  /** The watcher reported changed paths. */
  | { type: "local"; paths: Iterable<string> }
  /** The stop sweep found paths that differ from their base (no cycle queued: stop runs one). */
  | { type: "swept"; paths: Iterable<string> }
  /**
   * A status answer, on the worker's chain. `artifactId` is the one synced; `halted` when the
   * design is halted; `gitBusy` when a git operation holds the repository; `now` is monotonic
   * (the loop's ages), `at` the wall clock (stored for `status`).
   */
  | {
      type: "status";
      status: DesignStatus;
      persisted: { isGenerating: boolean; activeArtifactId: string | null } | undefined;
      artifactId: string | undefined;
      halted: boolean;
      gitBusy: boolean;
      now: number;
      at: number;
    }
  /**
   * A status answer as it arrives, before its poll is recorded and its turn on the chain comes:
   * `chainIdle` when no task is queued or running on the worker's chain.
   */
  | { type: "status-arrived"; status: DesignStatus; artifactId: string | undefined; gitBusy: boolean; chainIdle: boolean }
  /** The cycle's engine heard from the service (it pushed, pulled or met a conflict). */
  | { type: "answered" }
  /** A cycle is due: what it does depends on git, on what is pending and on the version synced (`artifactId`). */
  | { type: "cycle"; gitBusy: boolean; halted: boolean; artifactId?: string | undefined }
  /**
   * A cycle ran. `report` is undefined when it had nothing to do; `now` is monotonic. A full
   * sync hands back the `request` it answers, and `halted`: whether the folder is halted after it.
   */
  | {
      type: "cycle-done";
      full: boolean;
      report: CycleSummary | undefined;
      hadPersistedError: boolean;
      now: number;
      request?: SyncRequest | undefined;
      halted?: boolean | undefined;
    }
  /** A push cycle failed: its paths go back to pending (the failure follows as `failed`). */
  | { type: "unsent"; paths: ReadonlySet<string> }
  /**
   * A cycle, a status poll or a save failed. `jitter` in [0, 1) spreads retries. A failed full
   * sync of a `mpsync sync` carries the answer to it, in the reply's words (a reply never names the folder).
   */
  | {
      type: "failed";
      failure: FailureClass;
      code: string;
      message: string;
      jitter: number;
      answers?: { request: number; code: string; message: string } | undefined;
    }
  | { type: "retry-due" }
  /** The race window of the last push has passed (arm-confirm). */
  | { type: "confirm-due" }
  | { type: "git-free"; waitedMs: number; operation: string | undefined }
  | { type: "git-wait-ended" }
  /** `mpsync pause`: hold every cycle; `mpsync resume`: a full sync, then on as before. */
  | { type: "pause" }
  | { type: "resume" }
  /**
   * `mpsync sync` (or `pull --force` handed over, `force`): a full sync now, inside the current
   * task, answered under `request`. `gitBusy`, `halted` and `artifactId` as for `cycle`.
   */
  | { type: "sync-now"; request: number; force: boolean; gitBusy: boolean; halted: boolean; artifactId?: string | undefined }
  /** The watcher failed (a full inotify table...): `message` says what it means, once per code. */
  | { type: "watcher-error"; code: string; message: string }
  | { type: "stop" };

/** The next state and what to do, in order. */
export type Step = { state: LoopState; effects: Effect[] };

/** The state of a worker before `start`. */
export function initialLoopState(): LoopState {
  return {
    stopped: false,
    generating: false,
    needsFullSync: false,
    checkOnly: false,
    pending: new Set(),
    waitingForGit: false,
    failures: 0,
    retryArmed: false,
    confirmArmed: false,
    lastErrorCode: undefined,
    noArtifactNoted: false,
    // Never: the monotonic clock starts near 0 with the process, so 0 would read as "just now".
    lastRemoteRead: Number.NEGATIVE_INFINITY,
    lastStatusSave: Number.NEGATIVE_INFINITY,
    remoteNames: [],
    watcherErrors: [],
    paused: false,
    named: undefined,
    readAhead: undefined,
  };
}

/** What the loop knows of a cycle's report: the remote names it saw and how much moved. */
export interface CycleSummary {
  remoteNames: readonly string[];
  pulledOrRemoved: number;
  pushed: number;
}

/** The `cycle-done` event of a cycle that ended with `report` (undefined: it did nothing). */
export function cycleDoneEvent(
  full: boolean,
  report: CycleReport | undefined,
  hadPersistedError: boolean,
  now: number,
  after: { request?: SyncRequest | undefined; halted?: boolean } = {},
): LoopEvent {
  const result = report?.result;
  const summary =
    report === undefined
      ? undefined
      : {
          remoteNames: [...report.remoteNames],
          pulledOrRemoved: (result?.pulled.length ?? 0) + (result?.removed.length ?? 0),
          pushed: result?.pushed.length ?? 0,
        };
  return { type: "cycle-done", full, report: summary, hadPersistedError, now, ...after };
}
