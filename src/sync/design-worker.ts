/**
 * The daemon's loop for one design: local change batches become push passes, status polls
 * decide when to pull, and every cycle runs one at a time (a promise chain), so a pull and
 * a push of one folder never interleave. Pending paths survive failures: a failed cycle puts
 * them back and retries with backoff, so an offline service loses nothing.
 */
import type { V3Client } from "../api/client-types.js";
import type { DesignStatus } from "../api/schemas.js";
import { ApiError, hasCode, MpsyncError } from "../api/errors.js";
import type { Logger } from "../log/logger.js";
import type { Clock } from "../core/clock.js";
import type { EventSink } from "./events.js";
import type { DesignSync, CycleReport } from "./design-sync.js";
import type { ChangeSourceHandle } from "./ports.js";
import { describeError } from "./describe-error.js";
import { classifyFailure } from "./failure.js";

/** Failures that mean the service cannot be reached: said as "offline", then "back online". */
const OFFLINE_CODES = new Set<string | undefined>(["NETWORK", "TIMEOUT", "SERVER_ERROR"]);

/** `8 s`, `1.5 s`. */
function formatSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** An unchanged status is persisted at most this often. */
export const STATUS_SAVE_INTERVAL_MS = 60_000;
/** Default remoteCheckSec, in ms. */
export const DEFAULT_REMOTE_CHECK_MS = 60_000;


/** What a worker needs; wired by the composition root. */
export interface DesignWorkerOptions {
  dir: string;
  sync: DesignSync;
  client: V3Client;
  emit: EventSink;
  logger: Logger;
  clock: Clock;
  publishOnPush: boolean;
  /**
   * How often an idle design's remote file contents are read and reconciled, to see changes
   * that move no artifact id (web editor, a teammate's push), in ms. @default 60000
   */
  remoteCheckMs?: number;
  /** After a cycle that pulled or removed files (git.commitOnPull); must not reject. */
  onPulled?: (report: CycleReport, editorId: string) => Promise<void>;
  /** Starts watching; batches of relative paths arrive through `onBatch`. */
  watch(onBatch: (paths: Set<string>) => void, onError: (err: unknown) => void): ChangeSourceHandle;
  /** Runs `poll` no sooner than the poll interval allows (PollScheduler). */
  schedulePoll(editorId: string, poll: () => Promise<DesignStatus>, signal: AbortSignal): Promise<DesignStatus>;
  /** True while a git operation holds the enclosing repository (index.lock). */
  gitBusy(): boolean;
  /** Resolves when no git operation holds the enclosing repository (or at once). */
  waitForGit(signal: AbortSignal): Promise<{ waitedMs: number; operation?: string | undefined }>;
  /** False when this process no longer holds the folder's lock (checked at every status poll). */
  lockHeld?: () => Promise<boolean>;
  /** Called when the whole daemon must stop (401). */
  onFatal(err: unknown): void;
  /** Backoff of failed cycles, in ms. @default { baseMs: 1000, maxMs: 60000 } */
  retry?: { baseMs: number; maxMs: number };
}

/** One design's part of `mpsync watch`. */
export class DesignWorker {
  readonly #o: DesignWorkerOptions;
  readonly #pending = new Set<string>();
  readonly #abort = new AbortController();
  #chain: Promise<void> = Promise.resolve();
  #source: ChangeSourceHandle | undefined;
  #generating = false;
  #stopped = false;
  #needsFullSync = false;
  #failures = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #lastErrorCode: string | undefined;
  #waitingForGit = false;
  #lastStatusSave = 0;
  #remoteNames: string[] = [];
  #noArtifactNoted = false;
  /** When the last full sync (which reads every remote file) ran. */
  #lastRemoteRead = 0;

  constructor(options: DesignWorkerOptions) {
    this.#o = options;
  }

  /** Paths waiting to be pushed (status, tests). */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Opens the design, starts watching, runs the start-up sync, then polls until stopped. */
  async start(): Promise<void> {
    await this.#o.sync.open({ holdsLock: true }); // the daemon took the folder lock first
    this.#source = this.#o.watch(
      (paths) => this.#onLocalBatch(paths),
      (err) => this.#o.logger.warn({ err }, "watcher error"),
    );
    await this.#source.ready;
    this.#generating = this.#o.sync.state.lastStatus?.isGenerating === true;
    // Start-up reconcile: finds edits made while the daemon was down (against the base).
    this.#needsFullSync = true;
    await this.#enqueue(() => this.#cycle());
    // A start-up cycle that stopped this design (a refused key, no access) is not "ready".
    if (this.#stopped) return;
    this.#o.emit({ event: "ready", dir: this.#o.dir, editorId: this.#o.sync.editorId, message: "watching for changes" });
    void this.#pollLoop();
  }

  /** Flushes pending local changes (one last push), then stops everything. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    if (this.#o.gitBusy()) this.#o.logger.warn("stopping during a git operation: its changes are pushed at the next start");
    this.#source?.flush();
    // A last sweep against the base catches a save the watcher has not reported yet.
    await this.#enqueue(async () => {
      if (this.#o.sync.state.artifactId !== undefined) for (const p of await this.#o.sync.localChanges()) this.#pending.add(p);
      await this.#cycle();
    });
    if (this.#pending.size > 0) {
      this.#o.logger.warn({ pending: this.#pending.size }, "stopping with unpushed changes; they stay on disk and are pushed at the next start");
    }
    this.#halt();
    await this.#source?.close();
    await this.#chain;
  }

  /** Resolves once every queued cycle has run (tests, SIGTERM). */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.#chain;
      await seen;
    } while (seen !== this.#chain);
  }

  #halt(): void {
    this.#stopped = true;
    this.#abort.abort();
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
  }

  #onLocalBatch(paths: Set<string>): void {
    for (const p of paths) this.#pending.add(p);
    void this.#enqueue(() => this.#cycle());
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    this.#chain = this.#chain.then(task).catch((err: unknown) => this.#onCycleError(err));
    return this.#chain;
  }

  async #pollLoop(): Promise<void> {
    const { sync, client } = this.#o;
    while (!this.#stopped) {
      try {
        const status = await this.#o.schedulePoll(sync.editorId, () => client.getStatus(sync.editorId), this.#abort.signal);
        await this.#enqueue(() => this.#onStatus(status));
      } catch (err) {
        if (this.#stopped) return;
        this.#onCycleError(err);
        // The scheduler already spaces polls; a failed poll just waits for the next slot.
      }
    }
  }

  async #onStatus(status: DesignStatus): Promise<void> {
    if (this.#stopped) return;
    if (this.#o.lockHeld !== undefined && !(await this.#o.lockHeld())) {
      // `.mpsync/` was removed (or the lock taken over): another process may now sync this
      // folder, and two daemons on one folder is what the lock exists to prevent.
      throw new MpsyncError("FOLDER_LOCKED", `the lock of ${this.#o.dir} (.mpsync/lock) vanished or changed owner while mpsync ran`, {
        hint: "restart mpsync watch for this folder",
      });
    }
    const { sync, emit, dir } = this.#o;
    const persist = this.#statusWorthSaving(status);
    sync.state.lastStatus = { isGenerating: status.isGenerating, activeArtifactId: status.activeArtifactId, at: this.#o.clock.now() };
    if (status.isGenerating) {
      if (!this.#generating) emit({ event: "generating", dir, editorId: sync.editorId, message: "design is generating: pushes wait until it is idle" });
      this.#generating = true;
      if (persist) await sync.save();
      return;
    }
    const wasGenerating = this.#generating;
    this.#generating = false;
    if (status.activeArtifactId === null) {
      // No first artifact yet (a prompted design whose first generation has not produced
      // one): nothing to pull, nowhere to push. The first status with an id starts sync.
      this.#noteNoArtifact(wasGenerating ? "its first generation ended without a result" : "it has no version yet");
      if (persist) await sync.save();
      return;
    }
    this.#noArtifactNoted = false;
    const moved = status.activeArtifactId !== sync.state.artifactId || !sameNames(status.availableFiles, this.#remoteNames);
    if (wasGenerating) {
      emit({ event: "idle", dir, editorId: sync.editorId, message: moved ? "generation finished" : "generation ended without a new version" });
    }
    if (moved || wasGenerating || sync.state.halted !== undefined || this.#remoteCheckDue()) this.#needsFullSync = true;
    if (persist) await sync.save();
    await this.#cycle();
  }

  /**
   * In-place remote edits (the web editor's code view, another client's PATCH) move neither the
   * artifact id nor the file names that status shows: only the contents tell. Every
   * remoteCheckMs a full sync reads them and reconciles exactly as a pull would; between
   * checks an idle design costs one status poll per interval.
   */
  #remoteCheckDue(): boolean {
    return this.#o.clock.now() - this.#lastRemoteRead >= (this.#o.remoteCheckMs ?? DEFAULT_REMOTE_CHECK_MS);
  }

  /**
   * An idle daemon must cost nothing between polls: rewriting state.json (all bases and the
   * scan cache) on every poll of a 10,000-file folder cost ~4 % of a core. The status is
   * saved when it changes, and otherwise at most once a minute (`status` shows its age).
   */
  #statusWorthSaving(status: DesignStatus): boolean {
    const last = this.#o.sync.state.lastStatus;
    const changed = last === undefined || last.isGenerating !== status.isGenerating || last.activeArtifactId !== status.activeArtifactId;
    const now = this.#o.clock.now();
    if (!changed && now - this.#lastStatusSave < STATUS_SAVE_INTERVAL_MS) return false;
    this.#lastStatusSave = now;
    return true;
  }

  /** One cycle: a full sync if one is due, then a push pass of the pending paths. */
  async #cycle(): Promise<void> {
    if (this.#stopped || this.#generating) return;
    if (this.#waitingForGit || this.#o.gitBusy()) {
      // Neither push (half a checkout) nor write files into a tree git is rewriting. The
      // wait happens off the chain, so status polls go on meanwhile; once waiting, only the
      // waiter resumes, so the operation's changes go out as one batch, logged once.
      this.#resumeAfterGit();
      return;
    }
    const { sync } = this.#o;
    if (this.#needsFullSync || sync.state.halted !== undefined) {
      this.#pending.clear(); // a full sync covers every path
      const report = await sync.fullSync();
      this.#needsFullSync = false;
      this.#lastRemoteRead = this.#o.clock.now();
      await this.#afterCycle(report);
      return;
    }
    if (this.#pending.size === 0) return;
    const batch = new Set(this.#pending);
    this.#pending.clear();
    try {
      await this.#afterCycle(await sync.pushPaths(batch));
    } catch (err) {
      for (const p of batch) this.#pending.add(p);
      throw err;
    }
  }

  #resumeAfterGit(): void {
    if (this.#waitingForGit) return;
    this.#waitingForGit = true;
    this.#o.waitForGit(this.#abort.signal).then(
      (git) => {
        this.#waitingForGit = false;
        const operation = git.operation ?? "a git operation";
        this.#o.logger.info({ operation, waitedMs: git.waitedMs, pending: this.#pending.size }, `held pushes during ${operation}; sending its changes as one batch`);
        void this.#enqueue(() => this.#cycle());
      },
      () => {
        this.#waitingForGit = false; // stopped: the changes stay on disk for the next start
      },
    );
  }

  async #afterCycle(report: CycleReport | undefined): Promise<void> {
    this.#failures = 0;
    // A persisted error (this run's, or one a killed run left) is cleared once a cycle works:
    // `mpsync status` must not show an error after sync resumed.
    if (this.#lastErrorCode !== undefined || this.#o.sync.state.lastError !== undefined) {
      if (this.#lastErrorCode !== undefined) {
        const back = OFFLINE_CODES.has(this.#lastErrorCode) ? "back online: " : "";
        this.#o.emit({ event: "notice", dir: this.#o.dir, editorId: this.#o.sync.editorId, code: "RESUMED", message: `${back}sync resumed` });
      }
      this.#lastErrorCode = undefined;
      this.#o.sync.state.lastError = undefined;
      await this.#o.sync.save();
    }
    if (report === undefined) return;
    this.#remoteNames = [...report.remoteNames];
    if ((report.result?.pulled.length ?? 0) + (report.result?.removed.length ?? 0) > 0) await this.#o.onPulled?.(report, this.#o.sync.editorId);
    const pushed = report.result?.pushed.length ?? 0;
    if (pushed > 0 && this.#o.publishOnPush) await this.#publish(report.artifactId);
  }

  async #publish(artifactId: string): Promise<void> {
    const { client, sync, emit, dir } = this.#o;
    try {
      const r = await client.publish(sync.editorId, artifactId);
      emit({ event: "published", dir, editorId: sync.editorId, previewUrl: r.previewUrl, message: r.previewUrl === undefined ? "published" : `published ${r.previewUrl}` });
    } catch (err) {
      // A compile failure is the user's code, not a sync failure: show it and go on.
      if (!hasCode(err, "UNPROCESSABLE")) throw err;
      // The compiler's own words (`file:line:col: message`) are what the user and editors need.
      const why = err instanceof ApiError && err.serverMessage !== undefined ? err.serverMessage : describeError(err);
      emit({ event: "error", dir, editorId: sync.editorId, code: err.code, message: `publish failed: ${why}` });
    }
  }

  #noteNoArtifact(why: string): void {
    if (this.#noArtifactNoted) return;
    this.#noArtifactNoted = true;
    const { emit, dir, sync } = this.#o;
    emit({ event: "notice", dir, editorId: sync.editorId, code: "NO_ARTIFACT", message: `nothing to pull yet: ${why}; sync starts with its first version` });
  }

  #onCycleError(err: unknown): void {
    const { emit, dir, sync } = this.#o;
    const kind = classifyFailure(err);
    if (kind === "wait") {
      // Not a failure: the status poll starts sync once the design has a first artifact.
      this.#needsFullSync = true;
      this.#noteNoArtifact("it has no version yet");
      return;
    }
    if (kind === "fatal") {
      this.#halt();
      this.#o.onFatal(err);
      return;
    }
    const message = describeError(err);
    const code = err instanceof Error && "code" in err ? String((err as { code: unknown }).code) : "INTERNAL";
    if (kind === "stop-design") {
      emit({ event: "error", dir, editorId: sync.editorId, code, message: `${message}; sync of ${dir} stopped` });
      this.#halt();
      void this.#source?.close();
      return;
    }
    const delay = this.#scheduleRetry();
    // One line per kind of failure, not one per retry: an outage prints once, then "back online".
    const next = delay === undefined ? "" : ` (next try in ${formatSeconds(delay)})`;
    if (code !== this.#lastErrorCode) emit({ event: "error", dir, editorId: sync.editorId, code, message: `${OFFLINE_CODES.has(code) ? "offline: " : ""}${message}; retrying${next}` });
    this.#lastErrorCode = code;
    // `mpsync status` (another process) reads this from state.json.
    sync.state.lastError = { code, message, at: this.#o.clock.now() };
    sync.save().catch((err: unknown) => this.#o.logger.debug({ err }, "could not record the error"));
    this.#o.logger.debug({ err }, "cycle failed");
  }

  /** Arms the retry timer; resolves its delay (undefined when stopped or already armed). */
  #scheduleRetry(): number | undefined {
    if (this.#stopped || this.#retryTimer !== undefined) return undefined;
    const { baseMs, maxMs } = this.#o.retry ?? { baseMs: 1000, maxMs: 60_000 };
    const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(this.#failures, 20));
    this.#failures += 1;
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void this.#enqueue(() => this.#cycle());
    }, delay);
    this.#retryTimer.unref?.();
    return delay;
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(b);
  return a.every((n) => set.has(n));
}
