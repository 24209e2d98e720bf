/**
 * The daemon's loop for one design, the I/O half: local change batches become push passes,
 * status polls decide when to pull, and every cycle runs one at a time (a promise chain), so
 * a pull and a push of one folder never interleave. What happens on each event is decided by
 * the pure state machine in worker-loop.ts; this class feeds it events and runs its effects.
 * Pending paths survive failures: a failed cycle puts them back and retries with backoff, so
 * an offline service loses nothing.
 */
import type { DesignStatus } from "../api/schemas.js";
import { errorCode } from "../core/errors.js";
import { CYCLE_BACKOFF } from "../scheduling/backoff.js";
import type { CycleReport } from "../sync/design-sync.js";
import type { SyncEvent } from "../sync/events.js";
import type { ChangeSourceHandle } from "../sync/ports.js";
import { describeError } from "../sync/describe-error.js";
import { classifyFailure, describeFailure } from "../sync/failure.js";
import { describeWatcherError } from "../watch/watcher-errors.js";
import { DEFAULT_REMOTE_CHECK_MS, initialLoopState, step, type Effect, type LoopConfig, type LoopEvent, type LoopState } from "./worker-loop.js";
import { cycleDoneEvent } from "./loop-state.js";
import { LockWatch } from "./lock-watch.js";
import { WorkerCycles } from "./worker-cycles.js";
import { isPlainEffect, runPlainEffect, type EffectContext } from "./worker-effects.js";
import type { DesignWorkerOptions, SyncNowOutcome } from "./worker-options.js";

/** Engine events that only an answer of the service lets through. */
const ANSWERED_EVENTS: ReadonlySet<SyncEvent["event"]> = new Set(["pushed", "pulled", "conflict"]);

export type { DesignWorkerOptions, SyncNowOutcome } from "./worker-options.js";

/** One design's part of `mpsync watch`. */
export class DesignWorker {
  readonly #o: DesignWorkerOptions;
  readonly #cfg: LoopConfig;
  readonly #abort = new AbortController();
  #loop: LoopState = initialLoopState();
  #chain: Promise<void> = Promise.resolve();
  /** Tasks queued on the chain or running. */
  #queued = 0;
  #source: ChangeSourceHandle | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Is the folder's lock still ours (looked at on every status poll). */
  readonly #lock: LockWatch;
  /** The cycles it runs, and what the next full sync may use. */
  readonly #cycles: WorkerCycles;

  constructor(options: DesignWorkerOptions) {
    this.#o = options;
    this.#cycles = new WorkerCycles(options);
    this.#lock = new LockWatch(options.label, options.lockHeld);
    this.#cfg = {
      label: options.label,
      publishOnPush: options.publishOnPush,
      remoteCheckMs: options.remoteCheckMs ?? DEFAULT_REMOTE_CHECK_MS,
      retry: options.retry ?? CYCLE_BACKOFF,
    };
  }

  /** Paths waiting to be pushed (status, tests). */
  get pendingCount(): number {
    return this.#loop.pending.size;
  }

  /** Opens the design, starts watching, runs the start-up sync (unless `paused`), then polls until stopped. */
  async start(options: { paused?: boolean } = {}): Promise<void> {
    await this.#o.sync.open({ holdsLock: true }); // the daemon took the folder lock first
    void this.#cycles.prune(); // beside the start-up sync: a large backlog never delays `ready`
    // Paused by `mpsync pause` before this start: it stays paused (nothing syncs) until resume.
    if (options.paused === true) await this.#send({ type: "pause" });
    // The start-up cycle's remote read goes out now and arrives while the watcher walks the
    // folder; the local scan still begins only once the watcher is ready (an edit made during
    // the cycle must be seen). Not when that cycle will wait (generating, git busy).
    const generating = this.#o.sync.daemon.lastStatus?.isGenerating === true;
    if (!generating && !this.#loop.paused && !this.#o.gitBusy()) this.#cycles.startupRemote = this.#o.sync.readRemote();
    this.#source = this.#o.watch(
      (paths) => void this.#send({ type: "local", paths }),
      (err) => void this.#send({ type: "watcher-error", ...describeWatcherError(err, Math.round(this.#cfg.remoteCheckMs / 1000)) }),
    );
    await this.#source.ready;
    await this.#send({ type: "start", generating });
    await this.#chain;
    this.#cycles.startupRemote = undefined; // unused when the start-up cycle was not a full sync
    // A start-up cycle that stopped this design (a refused key, no access) is not "ready".
    if (this.#loop.stopped) return;
    this.#o.emit({ event: "ready", dir: this.#o.dir, editorId: this.#o.sync.editorId, message: "watching for changes" });
    void this.#pollLoop();
  }

  /**
   * Called with each event of this folder's engine before it is said: one that needed the
   * service's answer (pushed, pulled, a conflict) says "back online" first after an outage.
   */
  beforeSyncEvent(event: SyncEvent): void {
    if (!ANSWERED_EVENTS.has(event.event)) return;
    // Off the cycle's chain: its save (clear-error) must not fail the cycle, nor go unhandled.
    this.#send({ type: "answered" }).catch((err: unknown) => this.#o.logger.debug({ err }, "could not clear the recorded error"));
  }

  /** Flushes pending local changes (one last push), then stops everything. */
  async stop(): Promise<void> {
    if (this.#loop.stopped) return;
    if (this.#o.gitBusy()) this.#o.logger.warn("stopping during a git operation: its changes are pushed at the next start");
    this.#source?.flush();
    // A last sweep against the base catches a save the watcher has not reported yet.
    await this.#enqueue(async () => {
      if (this.#o.sync.status.artifactId !== undefined) await this.#send({ type: "swept", paths: await this.#o.sync.localChanges() });
      await this.#cycle();
    });
    if (this.#loop.pending.size > 0) {
      this.#o.logger.warn({ pending: this.#loop.pending.size }, "stopping with unpushed changes; they stay on disk and are pushed at the next start");
    }
    await this.#send({ type: "stop" });
    await this.#source?.close();
    await Promise.all([this.#chain, this.#cycles.pruned]); // a prune in flight ends before the folder's lock is let go
  }

  /** The design's editorId (after start). */
  get editorId(): string {
    return this.#o.sync.editorId;
  }

  /** True while held by `mpsync pause`. */
  get paused(): boolean {
    return this.#loop.paused;
  }

  /** Holds every cycle until resume (`mpsync pause`); local changes gather meanwhile. */
  pause(): Promise<void> {
    return this.#send({ type: "pause" });
  }

  /** Ends a pause with a full sync of what changed meanwhile (`mpsync resume`). */
  resume(): Promise<void> {
    return this.#send({ type: "resume" });
  }

  /**
   * A full sync now, behind any running cycle (`mpsync sync`); `force` proceeds past the
   * circuit breakers (`mpsync pull --force` handed over). Resolves with what came of it.
   */
  async syncNow(options: { force?: boolean } = {}): Promise<SyncNowOutcome> {
    let outcome: SyncNowOutcome = { ok: false, code: "STOPPED", message: "its sync has stopped" };
    await this.#enqueue(async () => {
      if (this.#loop.stopped) return;
      if (this.#loop.paused) {
        outcome = { ok: false, code: "PAUSED", message: "paused: run mpsync resume first" };
        return;
      }
      const ran = this.#cycles.fullSyncs;
      const wasHalted = this.#o.sync.status.halted !== undefined;
      this.#cycles.forceNext = options.force === true;
      try {
        await this.#send({ type: "sync-now" });
      } catch (err) {
        outcome = { ok: false, code: errorCode(err), message: describeError(err) };
        throw err;
      } finally {
        this.#cycles.forceNext = false;
      }
      if (this.#cycles.fullSyncs === ran) {
        const why = this.#loop.generating ? "the design is generating; it syncs when idle" : "a git operation holds the repository; it syncs when git is done";
        outcome = { ok: false, code: this.#loop.generating ? "GENERATING" : "GIT_BUSY", message: why };
        return;
      }
      // The cycle itself says "resumed: syncs again" when it clears a halt; the reply says it too.
      const haltCleared = wasHalted && this.#o.sync.status.halted === undefined;
      outcome = { ok: true, report: this.#cycles.lastFull, haltCleared };
    });
    return outcome;
  }

  /** Prunes old backups now, beside any running cycle (a reload changed keepBackupsDays). */
  pruneBackupsNow(): Promise<void> {
    return this.#cycles.prune();
  }

  /** Resolves once every queued cycle (and backup prune) has run (tests, SIGTERM). */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.#chain;
      await Promise.all([seen, this.#cycles.pruned]);
    } while (seen !== this.#chain);
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    this.#queued += 1;
    this.#chain = this.#chain
      .then(task)
      .catch((err: unknown) => this.#onFailure(err))
      .finally(() => void (this.#queued -= 1));
    return this.#chain;
  }

  /**
   * Feeds one event to the state machine and runs its effects, in order. `about` is what the loop keeps opaque but some effects hand on: the cycle's report
   * (commit-on-pull, publish) or the failure (fatal).
   */
  async #send(event: LoopEvent, about: EffectContext = {}): Promise<void> {
    const next = step(this.#loop, event, this.#cfg);
    this.#loop = next.state;
    for (const effect of next.effects) await this.#run(effect, about);
  }

  async #run(effect: Effect, about: EffectContext): Promise<void> {
    if (isPlainEffect(effect)) return runPlainEffect(this.#o, effect, about);
    switch (effect.do) {
      case "cycle":
        return this.#cycle();
      case "enqueue-cycle":
        void this.#enqueue(() => this.#cycle());
        return;
      case "full-sync":
        return this.#cycleDone(true, await this.#cycles.full(effect.check === true));
      case "push": {
        let report: CycleReport | undefined;
        try {
          report = await this.#cycles.push(effect.paths);
        } catch (err) {
          await this.#send({ type: "unsent", paths: effect.paths });
          throw err;
        } finally {
          this.#o.onCycleEnd?.();
        }
        return this.#cycleDone(false, report);
      }
      case "wait-git":
        this.#o.waitForGit(this.#abort.signal).then(
          (git) => this.#send({ type: "git-free", waitedMs: git.waitedMs, operation: git.operation }),
          () => this.#send({ type: "git-wait-ended" }),
        );
        return;
      case "arm-retry":
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = undefined;
          void this.#send({ type: "retry-due" });
        }, effect.delayMs);
        this.#retryTimer.unref?.();
        return;
      case "publish":
        return about.report === undefined ? undefined : this.#cycles.publish(about.report.artifactId);
      case "halt":
        this.#abort.abort();
        if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
        return;
      case "close-source":
        void this.#source?.close();
        return;
      default:
        return effect satisfies never;
    }
  }

  #cycle(): Promise<void> {
    return this.#send({ type: "cycle", gitBusy: !this.#loop.waitingForGit && this.#o.gitBusy(), halted: this.#o.sync.status.halted !== undefined });
  }

  #cycleDone(full: boolean, report: CycleReport | undefined): Promise<void> {
    const event = cycleDoneEvent(full, report, this.#o.sync.daemon.lastError !== undefined, this.#o.clock.monotonic());
    return this.#send(event, { report });
  }

  async #pollLoop(): Promise<void> {
    const { sync, client } = this.#o;
    // A new version's read goes out as the answer arrives (WorkerCycles.readEarly), when no
    // cycle is queued or running then nor once the poll is recorded.
    // When this process's own status request went out (a shared answer has no place in our order).
    let sentAt: number | undefined;
    const answered = async (): Promise<DesignStatus> => {
      sentAt = this.#o.clock.monotonic();
      const status = await client.getStatus(sync.editorId);
      if (this.#queued === 0 && !this.#loop.stopped && !this.#loop.paused && !this.#loop.waitingForGit) this.#cycles.readEarly(status);
      return status;
    };
    while (!this.#loop.stopped) {
      try {
        sentAt = undefined;
        const status = await this.#o.schedulePoll(sync.editorId, answered, this.#abort.signal);
        const ownSentAt = sentAt;
        if (this.#queued > 0) this.#cycles.dropEarly();
        await this.#enqueue(() => this.#onStatus(status, ownSentAt).finally(() => this.#cycles.dropEarly()));
      } catch (err) {
        if (this.#loop.stopped) return;
        await this.#onFailure(err);
        // The scheduler already spaces polls; a failed poll just waits for the next slot.
      }
    }
  }

  async #onStatus(status: DesignStatus, ownSentAt: number | undefined): Promise<void> {
    if (this.#loop.stopped) return;
    if (!(await this.#lock.stillHeld())) return;
    // Idle, seen by our own request: every PATCH answered before it went out is part of any later version.
    if (ownSentAt !== undefined && !status.isGenerating && status.activeArtifactId !== null) this.#o.sync.observeIdle(status.activeArtifactId, ownSentAt);
    this.#cycles.pruneIfDue();
    const { status: folder, daemon } = this.#o.sync;
    this.#cycles.namedVersion = status.activeArtifactId === null ? undefined : { artifactId: status.activeArtifactId, files: status.availableFiles };
    await this.#send({
      type: "status",
      status,
      persisted: daemon.lastStatus,
      artifactId: folder.artifactId,
      halted: folder.halted !== undefined,
      now: this.#o.clock.monotonic(),
      at: this.#o.clock.now(),
    });
  }

  #onFailure(err: unknown): Promise<void> {
    this.#o.logger.debug({ err }, "cycle failed");
    const random = this.#o.random ?? Math.random;
    const { code, message } = describeFailure(err, this.#o.label);
    return this.#send({ type: "failed", failure: classifyFailure(err), code, message, jitter: random() }, { err });
  }
}
