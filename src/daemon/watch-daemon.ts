/**
 * `mpsync watch`: one DesignWorker per mapped folder, each holding its folder's lock.
 * A 401 stops everything (`done` rejects); 403/404 stop one design; `reload` (SIGHUP) adds
 * and drops mappings without a restart; `stop` (SIGINT/SIGTERM) flushes pending pushes first.
 */
import { classifyFailure } from "../sync/failure.js";
import { stat } from "node:fs/promises";
import type { Mapping, Runtime } from "../runtime.js";
import type { EventSink } from "../sync/events.js";
import { DesignWorker } from "../sync/design-worker.js";
import { acquireFolderLock, type FolderLock } from "../state/lock.js";
import { createChangeSource } from "../watch/chokidar-source.js";
import { findGitDir, isGitBusy, waitForGitIdle } from "../local/git-lock.js";
import { describeError } from "../sync/describe-error.js";
import { createPullCommitter } from "../git/pull-committer.js";

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
      const worker = await this.#createWorker(mapping, lockHeld);
      this.#running.set(mapping.root, { mapping, worker, lock });
      await worker.start();
    } catch (err) {
      this.#running.delete(mapping.root);
      await lock?.release();
      emit({ event: "error", dir: mapping.dir, code: codeOf(err), message: `${describeError(err)}; ${mapping.dir} is not synced` });
      if (classifyFailure(err) === "fatal") this.#fatal(err);
      runtime.logger().debug({ err }, "start failed");
    }
  }

  async #createWorker(mapping: Mapping, lockHeld: () => Promise<boolean>): Promise<DesignWorker> {
    const { runtime, emit } = this.#o;
    const { config } = await runtime.config();
    const sync = await runtime.createDesignSync(mapping, emit);
    const scheduler = await runtime.pollScheduler();
    const gitDir = config.git.pauseDuringGitOps ? findGitDir(mapping.root) : undefined;
    return new DesignWorker({
      dir: mapping.dir,
      sync,
      client: await runtime.client(),
      emit,
      logger: runtime.logger().child({ dir: mapping.dir }),
      clock: runtime.clock,
      publishOnPush: config.publishOnPush,
      lockHeld,
      remoteCheckMs: config.remoteCheckSec * 1000,
      onPulled: createPullCommitter({ enabled: config.git.commitOnPull, root: mapping.root, dir: mapping.dir, client: await runtime.client(), logger: runtime.logger().child({ dir: mapping.dir }), emit }),
      retry: this.#o.retry,
      watch: (onBatch, onError) =>
        createChangeSource({ root: mapping.root, matcher: sync.matcher, debounceMs: config.debounceMs, onBatch, onError }),
      schedulePoll: (editorId, poll, signal) => scheduler.poll(editorId, poll, { signal }),
      gitBusy: () => gitDir !== undefined && isGitBusy(gitDir),
      waitForGit: async (signal) => (gitDir === undefined ? { waitedMs: 0 } : waitForGitIdle(gitDir, { signal })),
      onFatal: (err) => this.#fatal(err),
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

function codeOf(err: unknown): string {
  return err instanceof Error && "code" in err ? String((err as { code: unknown }).code) : "INTERNAL";
}
