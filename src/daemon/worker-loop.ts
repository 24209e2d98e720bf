/**
 * The daemon's loop for one design as a pure state machine (every rule a table row): `step(state, event)`
 * returns the next state and the effects to run, in order. `DesignWorker` (design-worker.ts)
 * is the thin I/O around it: it feeds events (a local batch, a status answer, a cycle's end or
 * failure, a retry timer, git going quiet, `mpsync sync`, stop) and runs the effects (cycles
 * with their inputs, reads sent ahead, saves, events, timers, answers). Every rule of the loop
 * lives here and in cycle-decision.ts, and is table-tested in worker-loop.test.ts.
 */
import { formatSeconds } from "../core/duration.js";
import { equalJitterMs } from "../scheduling/backoff.js";
import { OFFLINE_CODES, outageOverPrefix, outagePrefix } from "../sync/failure.js";
import { RACE_WINDOW_MS } from "../sync/other-writers.js";
import { afterPush, decideCycle, endReadAhead, onOpened, onStatusArrived, onSyncNow } from "./cycle-decision.js";
import type { Effect, LoopConfig, LoopEvent, LoopState, Step } from "./loop-state.js";

/** An unchanged status is persisted at most this often. */
export const STATUS_SAVE_INTERVAL_MS = 60_000;
/** Default remoteCheckSec, in ms. */
export const DEFAULT_REMOTE_CHECK_MS = 60_000;
/** A full sync of at least this many files (listed, pulled or removed) is followed by settle-heap. */
export const SETTLE_HEAP_MIN_FILES = 500;

/** When a push's confirmation read goes out: just past its race window. */
export const CONFIRM_AFTER_MS = RACE_WINDOW_MS + 250;

/** A full disk (sync/failure.ts describeFailure): said once, then "the disk has space again". */
const DISK_FULL = "DISK_FULL";

export type { Effect, LoopConfig, LoopEmit, LoopEvent, LoopState, Step } from "./loop-state.js";
export { initialLoopState } from "./loop-state.js";

/** The loop's one transition function. Pure: same state and event, same answer. */
export function step(s: LoopState, e: LoopEvent, cfg: LoopConfig): Step {
  switch (e.type) {
    case "opened":
      return onOpened(s, e);
    case "start":
      // Start-up reconcile: finds edits made while the daemon was down (against the base).
      return { state: { ...s, generating: e.generating, needsFullSync: true, checkOnly: false }, effects: [{ do: "enqueue-cycle" }] };
    case "local":
      return { state: { ...s, pending: union(s.pending, e.paths) }, effects: [{ do: "enqueue-cycle" }] };
    case "swept":
      return { state: { ...s, pending: union(s.pending, e.paths) }, effects: [] };
    case "ready": {
      // A start-up cycle that stopped this design (a refused key, no access) is not "ready".
      const ready: Effect[] = s.stopped ? [] : [{ do: "emit", event: { event: "ready", message: "watching for changes" } }];
      return endReadAhead({ state: s, effects: ready });
    }
    case "status":
      return endReadAhead(onStatus(s, e, cfg));
    case "status-arrived":
      return onStatusArrived(s, e);
    case "answered":
      return backOnline({ state: s, effects: [] });
    case "cycle":
      return decideCycle(s, e);
    case "cycle-done": {
      const done = onCycleDone(s, e, cfg);
      // A push pass with a report made requests; one without found nothing to send.
      return e.full ? done : afterPush(done, e.report !== undefined);
    }
    case "unsent":
      return afterPush({ state: { ...s, pending: union(s.pending, e.paths) }, effects: [] }, true);
    case "failed":
      return onFailed(s, e, cfg);
    case "retry-due":
      return { state: { ...s, retryArmed: false }, effects: [{ do: "enqueue-cycle" }] };
    case "confirm-due":
      return onConfirmDue(s);
    case "git-free": {
      const operation = e.operation ?? "a git operation";
      return {
        state: { ...s, waitingForGit: false },
        effects: [
          // Said only by a folder that held something: every folder of one repository waits for its git.
          {
            do: "log",
            level: s.pending.size > 0 ? "info" : "debug",
            message: `held pushes during ${operation}; sending its changes as one batch`,
            fields: { operation, waitedMs: e.waitedMs, pending: s.pending.size },
          },
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
      return {
        state: { ...s, watcherErrors: [...s.watcherErrors, e.code] },
        effects: [log, { do: "emit", event: { event: "error", code: e.code, message: e.message } }],
      };
    }
    case "pause":
      if (s.paused || s.stopped) return { state: s, effects: [] };
      return {
        state: { ...s, paused: true },
        effects: [{ do: "emit", event: { event: "notice", code: "PAUSED", message: "paused: local and remote changes wait until mpsync resume" } }],
      };
    case "resume":
      // A full sync catches up on everything that changed on either side meanwhile.
      if (!s.paused || s.stopped) return { state: s, effects: [] };
      return {
        state: { ...s, paused: false, needsFullSync: true, checkOnly: false },
        effects: [{ do: "emit", event: { event: "notice", code: "RESUMED", message: "resumed: syncing what changed meanwhile" } }, { do: "enqueue-cycle" }],
      };
    case "sync-now":
      return onSyncNow(s, e);
    case "stop":
      return { state: { ...s, stopped: true }, effects: s.stopped ? [] : [{ do: "halt" }] };
  }
}

function onStatus(s: LoopState, e: Extract<LoopEvent, { type: "status" }>, cfg: LoopConfig): Step {
  if (s.stopped) return { state: s, effects: [] };
  const { status, now } = e;
  const effects: Effect[] = [];
  const named = status.activeArtifactId === null ? undefined : { artifactId: status.activeArtifactId, files: status.availableFiles };
  // An idle daemon must cost nothing between polls: the status is saved when it changes, and
  // otherwise at most once a minute (`status` shows its age).
  const last = e.persisted;
  const changed = last === undefined || last.isGenerating !== status.isGenerating || last.activeArtifactId !== status.activeArtifactId;
  const persist = changed || now - s.lastStatusSave >= STATUS_SAVE_INTERVAL_MS;
  let next: LoopState = { ...s, named, ...(persist ? { lastStatusSave: now } : {}) };
  effects.push({ do: "set-status", status: { isGenerating: status.isGenerating, activeArtifactId: status.activeArtifactId, at: e.at } });
  // The service answered: back online is said now, before what the next cycle sends or pulls.
  ({ state: next } = backOnline({ state: next, effects }));
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
  // The cycle runs inside this task, and the status is saved after it, not before: a new
  // version's read goes out at once, and a cycle that moves anything saves it anyway.
  const cycle = decideCycle(next, e);
  return { state: cycle.state, effects: [...effects, ...cycle.effects, ...save()] };
}

/**
 * After an outage, the first answer of the service (a status poll, or a retried cycle's request
 * before any poll) says "back online", ahead of what that answer lets through: said at the
 * cycle's end, it would come after "pushed", as if the push had gone out offline.
 */
function backOnline(step: Step): Step {
  const s = step.state;
  if (!OFFLINE_CODES.has(s.lastErrorCode)) return step;
  step.effects.push(
    { do: "emit", event: { event: "notice", code: "RESUMED", message: `${outageOverPrefix(s.lastErrorCode)}sync resumed` } },
    { do: "clear-error" },
  );
  return { state: { ...s, lastErrorCode: undefined }, effects: step.effects };
}

function onCycleDone(s: LoopState, e: Extract<LoopEvent, { type: "cycle-done" }>, cfg: LoopConfig): Step {
  const done = afterCycle(s, e, cfg);
  if (e.request === undefined) return done;
  // The `mpsync sync` this full sync ran for is answered once everything the cycle asked for ran.
  const haltCleared = e.request.wasHalted && e.halted !== true;
  return { state: done.state, effects: [...done.effects, { do: "answer-sync", request: e.request.id, answer: { ok: true, haltCleared } }] };
}

function afterCycle(s: LoopState, e: Extract<LoopEvent, { type: "cycle-done" }>, cfg: LoopConfig): Step {
  let next: LoopState = { ...s, failures: 0 };
  if (e.full) next = { ...next, needsFullSync: false, checkOnly: false, lastRemoteRead: e.now };
  const effects: Effect[] = [];
  // A persisted error (this run's, or one a killed run left) is cleared once a cycle works:
  // `mpsync status` must not show an error after sync resumed.
  if (s.lastErrorCode !== undefined || e.hadPersistedError) {
    if (s.lastErrorCode !== undefined) {
      const back = OFFLINE_CODES.has(s.lastErrorCode) ? outageOverPrefix(s.lastErrorCode) : s.lastErrorCode === DISK_FULL ? "the disk has space again: " : "";
      effects.push({ do: "emit", event: { event: "notice", code: "RESUMED", message: `${back}sync resumed` } });
    }
    next = { ...next, lastErrorCode: undefined };
    effects.push({ do: "clear-error" });
  }
  if (e.report === undefined) return { state: next, effects };
  next = { ...next, remoteNames: e.report.remoteNames };
  if (e.report.pulledOrRemoved > 0) effects.push({ do: "after-pull" });
  if (e.report.pushed > 0 && cfg.publishOnPush) effects.push({ do: "publish" });
  // The push is confirmed by a read once its race window has passed: a removal of it seen
  // after that is a teammate's decision, not a race (sync/other-writers.ts).
  if (e.report.pushed > 0 && !s.stopped) {
    effects.push({ do: "arm-confirm", delayMs: CONFIRM_AFTER_MS });
    next = { ...next, confirmArmed: true };
  }
  // A full sync of a large design read every remote text: hand that memory back.
  if (e.full && Math.max(e.report.remoteNames.length, e.report.pulledOrRemoved) >= SETTLE_HEAP_MIN_FILES) effects.push({ do: "settle-heap" });
  return { state: next, effects };
}

/** The confirmation read is due: a content check, unless a cycle that reads more is due anyway or none may run now. */
function onConfirmDue(s: LoopState): Step {
  const next = { ...s, confirmArmed: false };
  if (s.stopped || s.paused || s.generating || s.waitingForGit || s.needsFullSync) return { state: next, effects: [] };
  return { state: { ...next, needsFullSync: true, checkOnly: true }, effects: [{ do: "enqueue-cycle" }] };
}

function onFailed(s: LoopState, e: Extract<LoopEvent, { type: "failed" }>, cfg: LoopConfig): Step {
  const out = failed(s, e, cfg);
  if (e.answers === undefined) return out;
  const { request, code, message } = e.answers;
  return { state: out.state, effects: [{ do: "answer-sync", request, answer: { ok: false, code, message } }, ...out.effects] };
}

function failed(s: LoopState, e: Extract<LoopEvent, { type: "failed" }>, cfg: LoopConfig): Step {
  switch (e.failure) {
    case "wait": // Not a failure: the status poll starts sync once the design has a first artifact.
      return noteNoArtifact({ ...s, needsFullSync: true, checkOnly: false }, "it has no version yet");
    case "git":
      // A git operation began while the cycle ran: its push was held back. Once git is done a
      // full sync redoes it, with the operation's changes. Not an error, not a retry.
      if (s.waitingForGit || s.stopped) return { state: { ...s, needsFullSync: true, checkOnly: false }, effects: [] };
      return {
        state: { ...s, waitingForGit: true, needsFullSync: true, checkOnly: false },
        effects: [
          { do: "log", level: "info", message: "a git operation began during the cycle: its push waits until git is done", fields: {} },
          { do: "wait-git" },
        ],
      };
    case "fatal":
      return { state: { ...s, stopped: true }, effects: [{ do: "halt" }, { do: "fatal" }] };
    case "stop-design":
      return {
        state: { ...s, stopped: true },
        effects: [
          { do: "emit", event: { event: "error", code: e.code, message: `${e.message}; sync of ${cfg.label} stopped` } },
          { do: "halt" },
          { do: "close-source" },
          { do: "stopped" },
        ],
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
        const offline = outagePrefix(e.code);
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
