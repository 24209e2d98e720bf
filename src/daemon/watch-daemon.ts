/**
 * `mpsync watch`: one DesignWorker per mapped folder, each holding its folder's lock.
 * A 401 stops everything (`done` rejects); 403/404 stop one design; `reload` (SIGHUP) adds
 * and drops mappings without a restart; `stop` (SIGINT/SIGTERM) flushes pending pushes first.
 */
import { classifyFailure } from "../sync/failure.js";
import { errorCode } from "../core/errors.js";
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
    if (this.#running.size === 0) throw new Error("no folder could be started");
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
      const worker = await runtime.createDesignWorker(mapping, { emit, lockHeld, onFatal: (err) => this.#fatal(err), retry: this.#o.retry });
      this.#running.set(mapping.root, { mapping, worker, lock });
      await worker.start();
    } catch (err) {
      this.#running.delete(mapping.root);
      await lock?.release();
      emit({ event: "error", dir: mapping.dir, code: errorCode(err), message: `${describeError(err)}; ${mapping.dir} is not synced` });
      if (classifyFailure(err) === "fatal") this.#fatal(err);
      runtime.logger().debug({ err }, "start failed");
    }
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
