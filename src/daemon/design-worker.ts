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
import type { SyncEvent } from "../sync/events.js";
import type { ChangeSourceHandle } from "../sync/ports.js";
import { describeError } from "../sync/describe-error.js";
import { classifyFailure, describeFailure } from "../sync/failure.js";
import { describeWatcherError } from "../watch/watcher-errors.js";
import { DEFAULT_REMOTE_CHECK_MS, initialLoopState, step, type Effect, type LoopConfig, type LoopEvent, type LoopState } from "./worker-loop.js";
import type { CycleProbe } from "./cycle-decision.js";
import { LockWatch } from "./lock-watch.js";
import { WorkerCycles } from "./worker-cycles.js";
import { isPlainEffect, runPlainEffect, type EffectContext, type FailedEvent, type Queued } from "./worker-effects.js";
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
  #confirmTimer: NodeJS.Timeout | undefined;
  /** Is the folder's lock still ours (looked at on every status poll). */
  readonly #lock: LockWatch;
  /** The cycles it runs, and the remote read sent ahead of one. */
  readonly #cycles: WorkerCycles;
  /** The id of the last `mpsync sync` asked of it, and the answers not yet handed back. */
  #lastRequest = 0;
  readonly #answers = new Map<number, SyncNowOutcome>();

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
    options.engineEvents?.listen((event) => this.#heard(event));
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
    const generating = this.#o.sync.daemon.lastStatus?.isGenerating === true;
    await this.#send({ type: "opened", generating, gitBusy: this.#o.gitBusy() });
    this.#source = this.#o.watch(
      (paths) => void this.#send({ type: "local", paths }),
      (err) => void this.#send({ type: "watcher-error", ...describeWatcherError(err, Math.round(this.#cfg.remoteCheckMs / 1000)) }),
    );
    await this.#source.ready;
    await this.#send({ type: "start", generating });
    await this.#chain;
    await this.#send({ type: "ready" });
    if (this.#loop.stopped) return;
    void this.#pollLoop();
  }

  /**
   * Hears each event of this folder's engine before it is said: one that needed the service's
   * answer (pushed, pulled, a conflict) says "back online" first after an outage.
   */
  #heard(event: SyncEvent): void {
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
    // A writer's late bytes on a file the last cycles replaced are recovered (pushed at the next start), no held file left.
    await this.#o.sync.endHolds();
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
    this.#lastRequest += 1;
    const request = this.#lastRequest;
    await this.#enqueue(async () => {
      try {
        await this.#send({ type: "sync-now", request, force: options.force === true, ...this.#probe() });
      } catch (err) {
        // What the cycle asked for after it (a save, commit-on-pull, publish) failed: the reply says so.
        this.#answer(request, { ok: false, code: errorCode(err), message: describeError(err) });
        throw err;
      }
    });
    const outcome = this.#answers.get(request) ?? { ok: false, code: "STOPPED", message: "its sync has stopped" };
    this.#answers.delete(request);
    return outcome;
  }

  /** Keeps the first answer to `request` (a later failure does not replace it). */
  #answer(request: number, outcome: SyncNowOutcome): void {
    if (!this.#answers.has(request)) this.#answers.set(request, outcome);
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
   * Feeds one event to the state machine and runs its effects, in order; an effect's outcome (a
   * cycle's end or failure) is the next event, stepped once the effects before it have run.
   * `about` is what the loop keeps opaque but some effects hand on: the cycle's report
   * (commit-on-pull, publish, a `sync`'s answer) or the failure (fatal).
   */
  async #send(event: LoopEvent, about: EffectContext = {}): Promise<void> {
    const queue: Queued[] = [{ event, about }];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const out = step(this.#loop, next.event, this.#cfg);
      this.#loop = out.state;
      for (const effect of out.effects) queue.push(...(await this.#run(effect, next.about)));
    }
  }

  async #run(effect: Effect, about: EffectContext): Promise<Queued[]> {
    if (isPlainEffect(effect)) {
      await runPlainEffect(this.#o, effect, about);
      return [];
    }
    switch (effect.do) {
      case "enqueue-cycle":
        void this.#enqueue(() => this.#cycle());
        return [];
      case "read-ahead":
        this.#cycles.readAhead(effect.version);
        return [];
      case "drop-read-ahead":
        this.#cycles.dropReadAhead();
        return [];
      case "full-sync":
      case "push":
        return this.#cycles.outcome(effect, (err) => this.#failed(err));
      case "answer-sync":
        this.#answer(effect.request, effect.answer.ok ? { ...effect.answer, report: about.report } : effect.answer);
        return [];
      case "wait-git":
        this.#o.waitForGit(this.#abort.signal).then(
          (git) => this.#send({ type: "git-free", waitedMs: git.waitedMs, operation: git.operation }),
          () => this.#send({ type: "git-wait-ended" }),
        );
        return [];
      case "arm-retry":
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = undefined;
          void this.#send({ type: "retry-due" });
        }, effect.delayMs);
        this.#retryTimer.unref?.();
        return [];
      case "arm-confirm":
        if (this.#confirmTimer !== undefined) clearTimeout(this.#confirmTimer);
        this.#confirmTimer = setTimeout(() => {
          this.#confirmTimer = undefined;
          void this.#send({ type: "confirm-due" });
        }, effect.delayMs);
        this.#confirmTimer.unref?.();
        return [];
      case "publish":
        if (about.report !== undefined) await this.#cycles.publish(about.report.artifactId);
        return [];
      case "halt":
        this.#abort.abort();
        if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
        if (this.#confirmTimer !== undefined) clearTimeout(this.#confirmTimer);
        return [];
      case "close-source":
        void this.#source?.close();
        return [];
      default:
        return effect satisfies never;
    }
  }

  /** What the worker looks at when a cycle comes due. */
  #probe(): CycleProbe {
    const { sync, gitBusy } = this.#o;
    return { gitBusy: !this.#loop.waitingForGit && gitBusy(), halted: sync.status.halted !== undefined, artifactId: sync.status.artifactId };
  }

  #cycle(): Promise<void> {
    return this.#send({ type: "cycle", ...this.#probe() });
  }

  async #pollLoop(): Promise<void> {
    const { sync, client } = this.#o;
    // The loop hears each answer as it arrives (a new version's read may go out at once), before
    // the poll is recorded and before the answer's turn on the chain.
    // When this process's own status request went out (a shared answer has no place in our order).
    let sentAt: number | undefined;
    const answered = async (): Promise<DesignStatus> => {
      sentAt = this.#o.clock.monotonic();
      const status = await client.getStatus(sync.editorId);
      const arrived = { status, artifactId: sync.status.artifactId, gitBusy: this.#o.gitBusy(), chainIdle: this.#queued === 0 };
      await this.#send({ type: "status-arrived", ...arrived });
      return status;
    };
    while (!this.#loop.stopped) {
      try {
        sentAt = undefined;
        const status = await this.#o.schedulePoll(sync.editorId, answered, this.#abort.signal);
        const ownSentAt = sentAt;
        await this.#enqueue(() => this.#onStatus(status, ownSentAt));
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
    await this.#send({
      type: "status",
      status,
      persisted: daemon.lastStatus,
      artifactId: folder.artifactId,
      halted: folder.halted !== undefined,
      gitBusy: !this.#loop.waitingForGit && this.#o.gitBusy(),
      now: this.#o.clock.monotonic(),
      at: this.#o.clock.now(),
    });
  }

  /** The `failed` event of `err`, with the error for the effects that hand it on. */
  #failed(err: unknown): FailedEvent {
    this.#o.logger.debug({ err }, "cycle failed");
    const random = this.#o.random ?? Math.random;
    const { code, message } = describeFailure(err, this.#o.label);
    return { event: { type: "failed", failure: classifyFailure(err), code, message, jitter: random() }, about: { err } };
  }

  #onFailure(err: unknown): Promise<void> {
    const { event, about } = this.#failed(err);
    return this.#send(event, about);
  }
}
