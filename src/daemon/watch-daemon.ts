/**
 * `mpsync watch`: one DesignWorker per mapped folder, each holding its folder's lock.
 * A 401 stops everything (`done` rejects); 403/404 (or a lost lock) stop one design, and when
 * no folder is left `done` rejects with why (a daemon that syncs nothing must not linger, nor
 * end without a word); `reload` (SIGHUP) adds and drops mappings without a restart; `stop`
 * (SIGINT/SIGTERM) flushes pending pushes first.
 */
import { classifyFailure } from "../sync/failure.js";
import { errorCode, MpsyncError, type ErrorCode } from "../core/errors.js";
import { stat } from "node:fs/promises";
import type { Mapping, Runtime } from "../runtime.js";
import type { EventSink } from "../sync/events.js";
import type { DesignWorker } from "../sync/design-worker.js";
import { acquireFolderLock, type FolderLock } from "../state/lock.js";
import { describeError } from "../sync/describe-error.js";

interface Running {
  mapping: Mapping;
  worker: DesignWorker;
  lock: FolderLock;
}

/** Options of the daemon. */
export interface WatchDaemonOptions {
  runtime: Runtime;
  /** Folders named on the command line (empty: every mapping). */
  dirs: string[];
  emit: EventSink;
  /** Backoff of failed cycles. @default { baseMs: 1000, maxMs: 60000 } */
  retry?: { baseMs: number; maxMs: number };
}

/** The running daemon. */
export class WatchDaemon {
  readonly #o: WatchDaemonOptions;
  readonly #running = new Map<string, Running>();
  /** Folders that stopped for good since the last start or reload, with why. */
  #stopped: { dir: string; err: unknown }[] = [];
  #stopping = false;
  #fatal: (err: unknown) => void = () => undefined;
  /** Rejects with the error that stopped the whole daemon (401); resolves after stop(). */
  readonly done: Promise<void>;
  #resolveDone: () => void = () => undefined;

  constructor(options: WatchDaemonOptions) {
    this.#o = options;
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolveDone = resolve;
      this.#fatal = reject;
    });
    // Callers may only await `done` later; never let a fatal error go unhandled meanwhile.
    this.done.catch(() => undefined);
  }

  /** Workers by folder (tests). */
  get workers(): DesignWorker[] {
    return [...this.#running.values()].map((r) => r.worker);
  }

  /** Starts a worker for every selected mapping. A folder that fails to start is reported; others go on. */
  async start(): Promise<void> {
    const mappings = await this.#o.runtime.mappings(this.#o.dirs);
    for (const m of mappings) await this.#startOne(m);
    if (this.#running.size === 0) throw this.#nothingLeft();
  }

  /** Re-reads .syncrc: starts new mappings, stops (with a flush) removed ones. */
  async reload(): Promise<void> {
    this.#o.runtime.forgetConfig();
    const wanted = await this.#o.runtime.mappings(this.#o.dirs);
    const roots = new Set(wanted.map((m) => m.root));
    for (const [root, r] of this.#running) {
      if (!roots.has(root)) await this.#stopOne(r);
    }
    for (const m of wanted) if (!this.#running.has(m.root)) await this.#startOne(m);
  }

  /** Flushes every worker's pending changes, then releases the folders. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const r of [...this.#running.values()]) await this.#stopOne(r);
    this.#resolveDone();
  }

  async #startOne(mapping: Mapping): Promise<void> {
    const { runtime, emit } = this.#o;
    let lock: FolderLock | undefined;
    try {
      lock = await acquireFolderLock(mapping.root, { command: "mpsync watch" });
      const held = lock;
      // A vanished mapped folder (lock included) is the folder-missing breaker's case: it halts
      // and waits; only a lock gone from a folder that is still there stops the worker.
      const lockHeld = async (): Promise<boolean> => (await stat(mapping.root).then(() => true, () => false)) ? held.stillHeld() : true;
      const onStopped = (err: unknown): void => void this.#onStopped(mapping, err);
      const worker = await runtime.createDesignWorker(mapping, { emit, lockHeld, onFatal: (err) => this.#fatal(err), onStopped, retry: this.#o.retry });
      this.#running.set(mapping.root, { mapping, worker, lock });
      await worker.start();
    } catch (err) {
      this.#running.delete(mapping.root);
      await lock?.release();
      this.#stopped.push({ dir: mapping.dir, err });
      emit({ event: "error", dir: mapping.dir, code: errorCode(err), message: `${describeError(err)}; ${mapping.dir} is not synced` });
      if (classifyFailure(err) === "fatal") this.#fatal(err);
      runtime.logger().debug({ err }, "start failed");
    }
  }

  /** A worker stopped itself (its error event is out): release its folder; none left ends the daemon. */
  async #onStopped(mapping: Mapping, err: unknown): Promise<void> {
    this.#stopped.push({ dir: mapping.dir, err });
    const r = this.#running.get(mapping.root);
    if (r === undefined) return;
    this.#running.delete(mapping.root);
    await r.lock.release().catch((e: unknown) => this.#o.runtime.logger().debug({ err: e }, "lock release failed"));
    if (this.#running.size === 0 && !this.#stopping) this.#fatal(this.#nothingLeft());
  }

  /** Why the daemon has nothing to do: every folder stopped or never started. */
  #nothingLeft(): MpsyncError {
    const last = this.#stopped.at(-1)?.err;
    // The exit code is the last cause's (403: 3); a stop with no coded cause is a failure.
    const code: ErrorCode = last instanceof MpsyncError ? last.code : "INTERNAL";
    const why = this.#stopped.map((s) => `${s.dir}: ${s.err instanceof MpsyncError ? s.err.code : describeError(s.err)}`).join(", ");
    return new MpsyncError(code, `watch stopped: no folder left to sync${why === "" ? "" : ` (${why})`}`, {
      cause: last,
      hint: "fix the cause named above, then start mpsync watch again",
    });
  }

  async #stopOne(r: Running): Promise<void> {
    this.#running.delete(r.mapping.root);
    try {
      await r.worker.stop();
    } finally {
      await r.lock.release();
    }
  }
}
