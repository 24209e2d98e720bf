/**
 * The daemon's loop for one design as a pure state machine (issue 15): `step(state, event)`
 * returns the next state and the effects to run, in order. `DesignWorker` (design-worker.ts)
 * is the thin I/O around it: it feeds events (a local batch, a status answer, a cycle's end or
 * failure, a retry timer, git going quiet, stop) and runs the effects (cycles, saves, events,
 * timers). Every rule of the loop lives here and is table-tested in worker-loop.test.ts.
 */
import type { DesignStatus } from "../api/schemas.js";
import { formatSeconds } from "../core/duration.js";
import { equalJitterMs, type Backoff } from "../scheduling/backoff.js";
import type { FailureClass } from "../sync/failure.js";
import type { SyncEventName } from "../sync/events.js";

/** An unchanged status is persisted at most this often. */
export const STATUS_SAVE_INTERVAL_MS = 60_000;
/** Default remoteCheckSec, in ms. */
export const DEFAULT_REMOTE_CHECK_MS = 60_000;
/** A full sync of at least this many files (listed, pulled or removed) is followed by settle-heap. */
export const SETTLE_HEAP_MIN_FILES = 500;

/** A full disk (sync/failure.ts describeFailure): said once, then "the disk has space again". */
const DISK_FULL = "DISK_FULL";
/** Failures that mean the service cannot be reached: said as "offline", then "back online". */
const OFFLINE_CODES = new Set<string | undefined>(["NETWORK", "TIMEOUT", "SERVER_ERROR"]);

/** The loop's settings (from .syncrc). */
export interface LoopConfig {
  /** The folder as written in .syncrc (messages name it). */
  dir: string;
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
}

/** An event, without the `dir` and `editorId` the worker adds. */
export interface LoopEmit {
  event: SyncEventName;
  message: string;
  code?: string;
}

/** What the worker must do, in order. */
export type Effect =
  | { do: "emit"; event: LoopEmit }
  | { do: "set-status"; status: { isGenerating: boolean; activeArtifactId: string | null; at: number } }
  /** Persist state (awaited). */
  | { do: "save" }
  /** Decide and run a cycle now, inside the current task. */
  | { do: "cycle" }
  /** Queue a cycle behind the running ones. */
  | { do: "enqueue-cycle" }
  /** `check`: only the content check is due (DesignSync.checkRemote reads a slice, check-scope.ts). */
  | { do: "full-sync"; check?: true }
  | { do: "push"; paths: ReadonlySet<string> }
  /** Wait (off the chain) until git is done, then send `git-free` or `git-wait-ended`. */
  | { do: "wait-git" }
  | { do: "arm-retry"; delayMs: number }
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
  /** The worker opened the design and its watcher is ready. */
  | { type: "start"; generating: boolean }
  /** The watcher reported changed paths. */
  | { type: "local"; paths: Iterable<string> }
  /** The stop sweep found paths that differ from their base (no cycle queued: stop runs one). */
  | { type: "swept"; paths: Iterable<string> }
  /**
   * A status answer. `artifactId` is the one synced; `halted` when the design is halted;
   * `now` is monotonic (the loop's ages), `at` the wall clock (stored for `status`).
   */
  | { type: "status"; status: DesignStatus; persisted: { isGenerating: boolean; activeArtifactId: string | null } | undefined; artifactId: string | undefined; halted: boolean; now: number; at: number }
  /** A cycle is due: what it does depends on git and on what is pending. */
  | { type: "cycle"; gitBusy: boolean; halted: boolean }
  /** A cycle ran. `report` is undefined when it had nothing to do; `now` is monotonic. */
  | { type: "cycle-done"; full: boolean; report: { remoteNames: readonly string[]; pulledOrRemoved: number; pushed: number } | undefined; hadPersistedError: boolean; now: number }
  /** A push cycle failed: its paths go back to pending (the failure follows as `failed`). */
  | { type: "unsent"; paths: ReadonlySet<string> }
  /** A cycle, a status poll or a save failed. `jitter` in [0, 1) spreads retries. */
  | { type: "failed"; failure: FailureClass; code: string; message: string; jitter: number }
  | { type: "retry-due" }
  | { type: "git-free"; waitedMs: number; operation: string | undefined }
  | { type: "git-wait-ended" }
  /** `mpsync pause`: hold every cycle; `mpsync resume`: a full sync, then on as before. */
  | { type: "pause" }
  | { type: "resume" }
  /** `mpsync sync` (or `pull --force` handed over): a full sync now, inside the current task. */
  | { type: "sync-now" }
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
    lastErrorCode: undefined,
    noArtifactNoted: false,
    // Never: the monotonic clock starts near 0 with the process, so 0 would read as "just now".
    lastRemoteRead: Number.NEGATIVE_INFINITY,
    lastStatusSave: Number.NEGATIVE_INFINITY,
    remoteNames: [],
    watcherErrors: [],
    paused: false,
  };
}

/** The loop's one transition function. Pure: same state and event, same answer. */
export function step(s: LoopState, e: LoopEvent, cfg: LoopConfig): Step {
  switch (e.type) {
    case "start":
      // Start-up reconcile: finds edits made while the daemon was down (against the base).
      return { state: { ...s, generating: e.generating, needsFullSync: true, checkOnly: false }, effects: [{ do: "enqueue-cycle" }] };
    case "local":
      return { state: { ...s, pending: union(s.pending, e.paths) }, effects: [{ do: "enqueue-cycle" }] };
    case "swept":
      return { state: { ...s, pending: union(s.pending, e.paths) }, effects: [] };
    case "status":
      return onStatus(s, e, cfg);
    case "cycle":
      return onCycle(s, e);
    case "cycle-done":
      return onCycleDone(s, e, cfg);
    case "unsent":
      return { state: { ...s, pending: union(s.pending, e.paths) }, effects: [] };
    case "failed":
      return onFailed(s, e, cfg);
    case "retry-due":
      return { state: { ...s, retryArmed: false }, effects: [{ do: "enqueue-cycle" }] };
    case "git-free": {
      const operation = e.operation ?? "a git operation";
      return {
        state: { ...s, waitingForGit: false },
        effects: [
          // Said only by a folder that held something: every folder of one repository waits for its git.
          { do: "log", level: s.pending.size > 0 ? "info" : "debug", message: `held pushes during ${operation}; sending its changes as one batch`, fields: { operation, waitedMs: e.waitedMs, pending: s.pending.size } },
          { do: "enqueue-cycle" },
        ],
      };
    }
    case "git-wait-ended":
      // Stopped while waiting: the changes stay on disk for the next start.
      return { state: { ...s, waitingForGit: false }, effects: [] };
    case "watcher-error": {
      const log: Effect = { do: "log", level: "debug", message: "watcher error", fields: { code: e.code } };
      if (s.watcherErrors.includes(e.code)) return { state: s, effects: [log] };
      return { state: { ...s, watcherErrors: [...s.watcherErrors, e.code] }, effects: [log, { do: "emit", event: { event: "error", code: e.code, message: e.message } }] };
    }
    case "pause":
      if (s.paused || s.stopped) return { state: s, effects: [] };
      return { state: { ...s, paused: true }, effects: [{ do: "emit", event: { event: "notice", code: "PAUSED", message: "paused: local and remote changes wait until mpsync resume" } }] };
    case "resume":
      // A full sync catches up on everything that changed on either side meanwhile.
      if (!s.paused || s.stopped) return { state: s, effects: [] };
      return { state: { ...s, paused: false, needsFullSync: true, checkOnly: false }, effects: [{ do: "emit", event: { event: "notice", code: "RESUMED", message: "resumed: syncing what changed meanwhile" } }, { do: "enqueue-cycle" }] };
    case "sync-now":
      if (s.stopped || s.paused) return { state: s, effects: [] };
      return { state: { ...s, needsFullSync: true, checkOnly: false }, effects: [{ do: "cycle" }] };
    case "stop":
      return { state: { ...s, stopped: true }, effects: s.stopped ? [] : [{ do: "halt" }] };
  }
}

function onStatus(s: LoopState, e: Extract<LoopEvent, { type: "status" }>, cfg: LoopConfig): Step {
  if (s.stopped) return { state: s, effects: [] };
  const { status, now } = e;
  const effects: Effect[] = [];
  // An idle daemon must cost nothing between polls: the status is saved when it changes, and
  // otherwise at most once a minute (`status` shows its age).
  const last = e.persisted;
  const changed = last === undefined || last.isGenerating !== status.isGenerating || last.activeArtifactId !== status.activeArtifactId;
  const persist = changed || now - s.lastStatusSave >= STATUS_SAVE_INTERVAL_MS;
  let next: LoopState = persist ? { ...s, lastStatusSave: now } : s;
  effects.push({ do: "set-status", status: { isGenerating: status.isGenerating, activeArtifactId: status.activeArtifactId, at: e.at } });
  const save = (): Effect[] => (persist ? [{ do: "save" }] : []);
  if (status.isGenerating) {
    if (!s.generating) effects.push({ do: "emit", event: { event: "generating", message: "design is generating: pushes wait until it is idle" } });
    return { state: { ...next, generating: true }, effects: [...effects, ...save()] };
  }
  const wasGenerating = s.generating;
  next = { ...next, generating: false };
  if (status.activeArtifactId === null) {
    // No first artifact yet (a prompted design whose first generation has not produced one):
    // nothing to pull, nowhere to push. The first status with an id starts sync.
    const noted = noteNoArtifact(next, wasGenerating ? "its first generation ended without a result" : "it has no version yet");
    return { state: noted.state, effects: [...effects, ...noted.effects, ...save()] };
  }
  next = { ...next, noArtifactNoted: false };
  const moved = status.activeArtifactId !== e.artifactId || !sameNames(status.availableFiles, s.remoteNames);
  if (wasGenerating) {
    effects.push({ do: "emit", event: { event: "idle", message: moved ? "generation finished" : "generation ended without a new version" } });
  }
  // In-place remote edits (the web editor's code view, another client's PATCH) move neither
  // the artifact id nor the file names: only the contents tell, read every remoteCheckMs.
  const checkDue = now - s.lastRemoteRead >= cfg.remoteCheckMs;
  if (moved || wasGenerating || e.halted) next = { ...next, needsFullSync: true, checkOnly: false };
  else if (checkDue && !next.needsFullSync) next = { ...next, needsFullSync: true, checkOnly: true };
  return { state: next, effects: [...effects, ...save(), { do: "cycle" }] };
}

function onCycle(s: LoopState, e: Extract<LoopEvent, { type: "cycle" }>): Step {
  if (s.stopped || s.generating || s.paused) return { state: s, effects: [] };
  if (s.waitingForGit || e.gitBusy) {
    // Neither push (half a checkout) nor write files into a tree git is rewriting. The wait
    // happens off the chain, so status polls go on meanwhile; once waiting, only the waiter
    // resumes, so the operation's changes go out as one batch, logged once.
    if (s.waitingForGit) return { state: s, effects: [] };
    return { state: { ...s, waitingForGit: true }, effects: [{ do: "wait-git" }] };
  }
  // A full sync covers every path.
  // A content check reads a slice of the files; with local paths pending, the full sync does it all.
  if (s.needsFullSync || e.halted) {
    const check = s.checkOnly && !e.halted && s.pending.size === 0;
    return { state: { ...s, pending: new Set() }, effects: [check ? { do: "full-sync", check } : { do: "full-sync" }] };
  }
  if (s.pending.size === 0) return { state: s, effects: [] };
  return { state: { ...s, pending: new Set() }, effects: [{ do: "push", paths: s.pending }] };
}

function onCycleDone(s: LoopState, e: Extract<LoopEvent, { type: "cycle-done" }>, cfg: LoopConfig): Step {
  let next: LoopState = { ...s, failures: 0 };
  if (e.full) next = { ...next, needsFullSync: false, checkOnly: false, lastRemoteRead: e.now };
  const effects: Effect[] = [];
  // A persisted error (this run's, or one a killed run left) is cleared once a cycle works:
  // `mpsync status` must not show an error after sync resumed.
  if (s.lastErrorCode !== undefined || e.hadPersistedError) {
    if (s.lastErrorCode !== undefined) {
      const back = OFFLINE_CODES.has(s.lastErrorCode) ? "back online: " : s.lastErrorCode === DISK_FULL ? "the disk has space again: " : "";
      effects.push({ do: "emit", event: { event: "notice", code: "RESUMED", message: `${back}sync resumed` } });
    }
    next = { ...next, lastErrorCode: undefined };
    effects.push({ do: "clear-error" });
  }
  if (e.report === undefined) return { state: next, effects };
  next = { ...next, remoteNames: e.report.remoteNames };
  if (e.report.pulledOrRemoved > 0) effects.push({ do: "after-pull" });
  if (e.report.pushed > 0 && cfg.publishOnPush) effects.push({ do: "publish" });
  // A full sync of a large design read every remote text: hand that memory back.
  if (e.full && Math.max(e.report.remoteNames.length, e.report.pulledOrRemoved) >= SETTLE_HEAP_MIN_FILES) effects.push({ do: "settle-heap" });
  return { state: next, effects };
}

function onFailed(s: LoopState, e: Extract<LoopEvent, { type: "failed" }>, cfg: LoopConfig): Step {
  switch (e.failure) {
    case "wait": // Not a failure: the status poll starts sync once the design has a first artifact.
      return noteNoArtifact({ ...s, needsFullSync: true, checkOnly: false }, "it has no version yet");
    case "git":
      // A git operation began while the cycle ran: its push was held back. Once git is done a
      // full sync redoes it, with the operation's changes. Not an error, not a retry.
      if (s.waitingForGit || s.stopped) return { state: { ...s, needsFullSync: true, checkOnly: false }, effects: [] };
      return { state: { ...s, waitingForGit: true, needsFullSync: true, checkOnly: false }, effects: [{ do: "log", level: "info", message: "a git operation began during the cycle: its push waits until git is done", fields: {} }, { do: "wait-git" }] };
    case "fatal":
      return { state: { ...s, stopped: true }, effects: [{ do: "halt" }, { do: "fatal" }] };
    case "stop-design":
      return {
        state: { ...s, stopped: true },
        effects: [{ do: "emit", event: { event: "error", code: e.code, message: `${e.message}; sync of ${cfg.dir} stopped` } }, { do: "halt" }, { do: "close-source" }, { do: "stopped" }],
      };
    case "retry": {
      let next = s;
      const effects: Effect[] = [];
      let delay: number | undefined;
      if (!s.stopped && !s.retryArmed) {
        delay = equalJitterMs(s.failures, cfg.retry, e.jitter);
        next = { ...next, failures: s.failures + 1, retryArmed: true };
        effects.push({ do: "arm-retry", delayMs: delay });
      }
      // One line per kind of failure, not one per retry: an outage prints once, then "back online".
      if (e.code !== s.lastErrorCode) {
        const nextTry = delay === undefined ? "" : ` (next try in ${formatSeconds(delay)})`;
        const offline = OFFLINE_CODES.has(e.code) ? "offline: " : "";
        const retrying = e.code === DISK_FULL ? "sync resumes by itself once space is freed" : "retrying";
        effects.push({ do: "emit", event: { event: "error", code: e.code, message: `${offline}${e.message}; ${retrying}${nextTry}` } });
      }
      // `mpsync status` (another process) reads this from .mpsync.
      effects.push({ do: "record-error", code: e.code, message: e.message });
      return { state: { ...next, lastErrorCode: e.code }, effects };
    }
  }
}

function noteNoArtifact(s: LoopState, why: string): Step {
  if (s.noArtifactNoted) return { state: s, effects: [] };
  return {
    state: { ...s, noArtifactNoted: true },
    effects: [{ do: "emit", event: { event: "notice", code: "NO_ARTIFACT", message: `nothing to pull yet: ${why}; sync starts with its first version` } }],
  };
}

function union(a: ReadonlySet<string>, b: Iterable<string>): ReadonlySet<string> {
  const out = new Set(a);
  for (const p of b) out.add(p);
  return out;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(b);
  return a.every((n) => set.has(n));
}
