/**
 * `mpsync watch`: one DesignWorker per mapped folder, each holding its folder's lock.
 * A 401 stops everything (`done` rejects); 403/404 (or a lost lock) stop one design, and when
 * no folder is left `done` rejects with why (a daemon that syncs nothing must not linger, nor
 * end without a word). A saved .syncrc (watched) or SIGHUP reloads: new mappings start,
 * removed ones stop, changed settings apply (config-diff.ts) and one line says what happened.
 * `stop` (SIGINT/SIGTERM) flushes pending pushes first.
 */
import { classifyFailure } from "../sync/failure.js";
import { errorCode, hasCode, MpsyncError, type ErrorCode } from "../core/errors.js";
import { stat } from "node:fs/promises";
import type { Mapping, Runtime, WriteObserver } from "../runtime.js";
import type { ResolvedConfig } from "../config/load-config.js";
import type { EventSink } from "../sync/events.js";
import type { Backoff } from "../scheduling/backoff.js";
import type { DesignWorker } from "./design-worker.js";
import { createDesignWorker } from "./create-worker.js";
import { acquireFolderLock, type FolderLock } from "../state/lock.js";
import { describeError } from "../sync/describe-error.js";
import { describeReload, planReload } from "./config-diff.js";
import { readConfigText, watchConfigFile, type ConfigWatcher } from "./config-watcher.js";
import { summarizeCycle } from "../sync/cycle-summary.js";
import { readPause } from "../state/pause-marker.js";
import { startControlServer, type ControlReply, type ControlRequest, type ControlServer } from "./control-channel.js";
import { StateFeed } from "./state-feed.js";

/** A new folder another mpsync process holds (`init` pulling it) is tried again this often. */
export const LOCKED_RETRY_MS = 1000;

interface Running {
  mapping: Mapping;
  worker: DesignWorker;
  lock: FolderLock;
  control: ControlServer | undefined;
  /** The folder's state for the control channel's `subscribe`. */
  feed: StateFeed;
}

/** Options of the daemon. */
export interface WatchDaemonOptions {
  runtime: Runtime;
  /** Folders named on the command line (empty: every mapping). */
  dirs: string[];
  emit: EventSink;
  /** Backoff of failed cycles (`scheduling/backoff.ts`). @default CYCLE_BACKOFF: { baseMs: 1000, maxMs: 60000 } */
  retry?: Backoff;
  /** Reload when .syncrc is saved. @default true */
  watchConfig?: boolean;
  /** Hears each folder's writes by the engine (`mpsync dev`). */
  writes?: WriteObserver;
  /** Hears each local change the folders' change sources see, at once (`mpsync dev`'s preview: one source of file events). */
  onLocalChange?: (rel: string) => void;
  /** How the folder lock names this process (`status`, `prompt`, a second run's refusal). @default "mpsync watch" */
  command?: string;
}

/** The running daemon. */
export class WatchDaemon {
  readonly #o: WatchDaemonOptions;
  readonly #running = new Map<string, Running>();
  /** Folders that stopped for good since the last start or reload, with why. */
  #stopped: { label: string; err: unknown }[] = [];
  #stopping = false;
  /** The last reload was refused: the next good one is said even when it changes nothing. */
  #reloadRefused = false;
  /** New folders held by another mpsync process, started once it lets go. */
  readonly #waiting = new Map<string, { mapping: Mapping; timer: NodeJS.Timeout }>();
  /** A folder's lock and socket being put back (#reclaim). */
  readonly #reclaiming = new Map<string, Promise<boolean>>();
  /** The settings the running folders use (a reload compares the new file with them). */
  #config: ResolvedConfig | undefined;
  #configWatcher: ConfigWatcher | undefined;
  /** Reloads run one at a time (a signal and a save may come together). */
  #reloads: Promise<unknown> = Promise.resolve();
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
    const loaded = await this.#o.runtime.config();
    this.#config = loaded.config;
    const mappings = await this.#o.runtime.mappings(this.#o.dirs);
    for (const m of mappings) await this.#startOne(m);
    if (this.#running.size === 0) throw this.#nothingLeft();
    if (this.#o.watchConfig !== false) {
      this.#configWatcher = watchConfigFile({
        path: loaded.path,
        initialText: await readConfigText(loaded.path),
        onChange: () => void this.reloadAndSay("file"),
        onError: (err) => this.#o.runtime.logger().debug({ err }, "cannot watch .syncrc; SIGHUP still reloads it"),
      });
    }
  }

  /**
   * Re-reads .syncrc: starts new mappings, stops (with a flush) removed ones, restarts the sync
   * of running folders whose settings changed, applies poll interval, concurrency and
   * keepBackupsDays in place.
   * Resolves the line that says what changed (undefined: nothing); rejects (CONFIG_INVALID) and
   * changes nothing when the file does not validate.
   */
  reload(): Promise<string | undefined> {
    const next = this.#reloads.then(() => this.#reloadNow());
    this.#reloads = next.catch(() => undefined);
    return next;
  }

  /** reload(), then one event: what changed (a signal hears "nothing changed" too), or why it was refused. */
  async reloadAndSay(trigger: "signal" | "file"): Promise<void> {
    const { emit } = this.#o;
    try {
      const line = await this.reload();
      // A fix of a refused file is said even when it changes nothing: the error line cleared.
      const wasRefused = this.#reloadRefused;
      this.#reloadRefused = false;
      if (line !== undefined || trigger === "signal" || wasRefused) {
        const nothing = wasRefused ? ".syncrc is valid again: nothing changed" : "reloaded .syncrc: nothing changed";
        emit({ event: "notice", dir: "*", code: "RELOADED", message: line ?? nothing });
      }
    } catch (err) {
      this.#reloadRefused = true;
      const fix = trigger === "signal" ? "fix .syncrc, then SIGHUP again" : "fix .syncrc: it is read again when saved";
      emit({
        event: "error",
        dir: "*",
        code: errorCode(err),
        message: `reload refused, the running designs keep their settings (${fix}): ${describeError(err)}`,
      });
    }
  }

  async #reloadNow(): Promise<string | undefined> {
    const { runtime } = this.#o;
    if (this.#stopping || this.#config === undefined) return undefined;
    const loaded = await runtime.reloadConfig();
    this.#configWatcher?.taken(await readConfigText(loaded.path));
    const wanted = await runtime.mappings(this.#o.dirs);
    const current = [...[...this.#running.values()].map((r) => r.mapping), ...[...this.#waiting.values()].map((w) => w.mapping)];
    const plan = planReload(this.#config, loaded.config, current, wanted);
    this.#config = loaded.config;
    for (const m of [...plan.stop, ...plan.restart]) {
      this.#unwait(m.root);
      const r = this.#running.get(m.root);
      if (r !== undefined) await this.#stopOne(r);
    }
    for (const m of [...plan.restart, ...plan.start]) await this.#startOne(m, { waitForLock: true });
    // A new keepBackupsDays applies now, beside each folder's cycles, not a day later.
    if (plan.liveKeys.includes("keepBackupsDays")) for (const r of this.#running.values()) void r.worker.pruneBackupsNow();
    if (this.#running.size === 0 && this.#waiting.size === 0 && !this.#stopping) this.#fatal(this.#nothingLeft());
    return describeReload(plan);
  }

  /** Flushes every worker's pending changes, then releases the folders. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#configWatcher?.close();
    for (const root of [...this.#waiting.keys()]) this.#unwait(root);
    for (const r of [...this.#running.values()]) await this.#stopOne(r);
    this.#resolveDone();
  }

  async #startOne(mapping: Mapping, options: { waitForLock?: boolean; quiet?: boolean } = {}): Promise<void> {
    const { runtime, emit } = this.#o;
    let lock: FolderLock | undefined;
    try {
      lock = await acquireFolderLock(mapping.root, { command: this.#o.command ?? "mpsync watch" });
    } catch (err) {
      // A folder `mpsync init` is still pulling (it added the mapping a moment ago): start it
      // once that process lets go, instead of giving it up.
      if (options.waitForLock === true && hasCode(err, "FOLDER_LOCKED")) {
        if (options.quiet !== true)
          emit({ event: "notice", dir: mapping.dir, code: "WAITING", message: `${describeError(err)}; its sync starts here when that process ends` });
        const timer = setTimeout(() => {
          if (this.#waiting.get(mapping.root)?.timer !== timer || this.#stopping) return;
          this.#waiting.delete(mapping.root);
          void this.#startOne(mapping, { waitForLock: true, quiet: true });
        }, LOCKED_RETRY_MS);
        this.#waiting.set(mapping.root, { mapping, timer });
        return;
      }
      return this.#startFailed(mapping, err, undefined);
    }
    try {
      const held = lock;
      // A vanished mapped folder (lock included) is the folder-missing breaker's case: it halts
      // and waits; once it is back, the lock and socket that went with it are put back
      // (#reclaim). Only a lock gone from a folder that stayed there stops the worker.
      let sawGone = false;
      const lockHeld = async (): Promise<boolean> => {
        if (!(await folderThere(mapping.root))) return (sawGone = true);
        if (sawGone && (await this.#reclaim(mapping.root))) sawGone = false;
        return held.stillHeld();
      };
      const onStopped = (err: unknown): void => void this.#onStopped(mapping, err);
      // The folder's state for the control channel's `subscribe` (an editor's status bar).
      const feed = new StateFeed();
      const writes = this.#o.writes;
      const worker = await createDesignWorker(runtime, mapping, {
        emit: (event) => {
          emit(event);
          feed.event(event);
        },
        lockHeld,
        onFatal: (err) => this.#fatal(err),
        onStopped,
        retry: this.#o.retry,
        writes: {
          writing: () => writes?.writing(),
          settled: () => {
            writes?.settled();
            feed.cycleEnd();
          },
        },
        onLocalChange: this.#o.onLocalChange,
      });
      // `mpsync sync`, `pause`, `resume` and `pull --force` reach this worker through it.
      const control = await this.#listen(mapping.root, worker, feed);
      this.#running.set(mapping.root, { mapping, worker, lock, control, feed });
      await worker.start({ paused: (await readPause(mapping.root)) !== undefined });
    } catch (err) {
      await this.#running.get(mapping.root)?.control?.close();
      this.#running.delete(mapping.root);
      await this.#startFailed(mapping, err, lock);
    }
  }

  /** The folder's control channel (control-channel.ts); undefined when it cannot listen. */
  #listen(root: string, worker: DesignWorker, feed: StateFeed): Promise<ControlServer | undefined> {
    const answer = async (request: ControlRequest): Promise<ControlReply> => {
      const reply = await answerControl(worker, request);
      // A `pull --force` handed over after the folder was removed has brought it back.
      if (request.op === "sync") await this.#reclaim(root);
      return reply;
    };
    return startControlServer(root, answer, feed).catch((err: unknown) => {
      this.#o.runtime.logger().debug({ err }, "control channel unavailable");
      return undefined;
    });
  }

  /**
   * After the mapped folder was removed and is back: the lock and the control socket that went
   * with `.mpsync/` are made again (unless another process took the folder meanwhile). True
   * when this process holds the folder again.
   */
  #reclaim(root: string): Promise<boolean> {
    // One at a time per folder: a status poll's lock check and a handed-over pull may both ask.
    const prior = this.#reclaiming.get(root) ?? Promise.resolve(false);
    const next = prior.then(() => this.#reclaimNow(root));
    this.#reclaiming.set(root, next);
    void next.finally(() => this.#reclaiming.get(root) === next && this.#reclaiming.delete(root)).catch(() => undefined);
    return next;
  }

  async #reclaimNow(root: string): Promise<boolean> {
    const r = this.#running.get(root);
    if (r === undefined || !(await folderThere(root)) || (await r.lock.stillHeld())) return false;
    if (!(await r.lock.reclaim())) return false;
    // The old server stops listening first (libuv unlinks a socket's path as it closes) and
    // ends once its connections do: one of them may be the `pull --force` being answered now.
    void r.control?.close(true).catch(() => undefined);
    r.control = await this.#listen(root, r.worker, r.feed);
    return true;
  }

  async #startFailed(mapping: Mapping, err: unknown, lock: FolderLock | undefined): Promise<void> {
    await lock?.release();
    this.#stopped.push({ label: mapping.label, err });
    this.#o.emit({ event: "error", dir: mapping.dir, code: errorCode(err), message: `${describeError(err)}; ${mapping.label} is not synced` });
    if (classifyFailure(err) === "fatal") this.#fatal(err);
    this.#o.runtime.logger().debug({ err }, "start failed");
  }

  #unwait(root: string): void {
    const w = this.#waiting.get(root);
    if (w === undefined) return;
    clearTimeout(w.timer);
    this.#waiting.delete(root);
  }

  /** A worker stopped itself (its error event is out): release its folder; none left ends the daemon. */
  async #onStopped(mapping: Mapping, err: unknown): Promise<void> {
    this.#stopped.push({ label: mapping.label, err });
    const r = this.#running.get(mapping.root);
    if (r === undefined) return;
    this.#running.delete(mapping.root);
    await r.control?.close().catch(() => undefined);
    await r.lock.release().catch((e: unknown) => this.#o.runtime.logger().debug({ err: e }, "lock release failed"));
    if (this.#running.size === 0 && this.#waiting.size === 0 && !this.#stopping) this.#fatal(this.#nothingLeft());
  }

  /** Why the daemon has nothing to do: every folder stopped or never started. */
  #nothingLeft(): MpsyncError {
    const last = this.#stopped.at(-1)?.err;
    // The exit code is the last cause's (403: 3); a stop with no coded cause is a failure.
    const code: ErrorCode = last instanceof MpsyncError ? last.code : "INTERNAL";
    const why = this.#stopped.map((s) => `${s.label}: ${s.err instanceof MpsyncError ? s.err.code : describeError(s.err)}`).join(", ");
    return new MpsyncError(code, `watch stopped: no folder left to sync${why === "" ? "" : ` (${why})`}`, {
      cause: last,
      hint: "fix the cause named above, then start mpsync watch again",
    });
  }

  async #stopOne(r: Running): Promise<void> {
    this.#running.delete(r.mapping.root);
    try {
      await r.control?.close();
      await r.worker.stop();
    } finally {
      await r.lock.release();
    }
  }
}

async function folderThere(root: string): Promise<boolean> {
  return stat(root).then(
    (st) => st.isDirectory(),
    () => false,
  );
}

/**
 * One request of the control channel, answered by the folder's worker. A reply never names the
 * folder: the command names it as its caller reads it (config/mappings.ts `folderLabel`, from
 * the command's working directory, not the daemon's).
 */
async function answerControl(worker: DesignWorker, request: ControlRequest): Promise<ControlReply> {
  switch (request.op) {
    case "pause":
      await worker.pause();
      return { ok: true, message: "paused: nothing syncs until mpsync resume" };
    case "resume":
      await worker.resume();
      return { ok: true, message: "resumed: syncing what changed meanwhile" };
    case "subscribe":
      return { ok: false, code: "USAGE", message: "subscribe is answered by the control channel" };
    case "sync": {
      const outcome = await worker.syncNow({ force: request.force === true });
      if (!outcome.ok) return outcome;
      const summary = summarizeCycle(outcome.report);
      const again = outcome.haltCleared ? "; halt cleared, it syncs again" : "";
      return { ok: summary.halted === undefined, message: `synced by the running daemon${again}`, summary: { ...summary, editorId: worker.editorId } };
    }
  }
}
