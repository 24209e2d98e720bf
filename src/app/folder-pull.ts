/**
 * Pulling a mapped folder from a one-shot command (`init`, `checkout`, `prompt --wait`): under
 * the folder's lock, unless another process (a daemon) holds it and will pull by itself. What
 * the pull shows while it runs is the caller's (`PullView`); how far it got is kept in a
 * `PullProgress` the caller may read (an interrupted command says it).
 */
import type { Mapping, Runtime } from "../runtime.js";
import type { LockInfo } from "../state/lock.js";
import { summarizeCycle } from "../sync/cycle-summary.js";
import type { TimedSummary } from "./json-documents.js";
import type { DesignSync } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import { pullFolder, withFolderIfFree } from "./folder.js";

/** How far a pull got. */
export interface PullProgress {
  /** The folder being pulled now, as lines name it (config/mappings.ts `folderLabel`). */
  label: string | undefined;
  done: number;
  total: number;
  /** Folders finished before it. */
  finished: string[];
}

/** A fresh progress record. */
export function newPullProgress(): PullProgress {
  return { label: undefined, done: 0, total: 0, finished: [] };
}

/** A pull's summary with how long it took (the totals line says it). */
export type { TimedSummary } from "./json-documents.js";

/** What a running pull shows (the CLI: a progress bar on a terminal). */
export interface PullView {
  update(done: number, total: number): void;
  stop(): void;
}

/** How a one-shot pull runs and reports. */
export interface PullOptions {
  emit: EventSink;
  /** Opened when the pull starts, under the lock; stopped when it ends. */
  view?: () => PullView;
  /** `init --force`: a full reconcile that also pushes. */
  send?: boolean;
  progress?: PullProgress;
}

/** Pulls the mapping's design under the folder's lock, unless another process holds it: then `pulledBy` names it. */
export async function pullMappedIfFree(
  runtime: Runtime,
  mapping: Mapping,
  command: string,
  options: PullOptions,
): Promise<{ pull: TimedSummary | undefined; pulledBy: string | undefined }> {
  const done = await withFolderIfFree(runtime, mapping, { command, emit: options.emit }, (sync) => timedPull(runtime, mapping, sync, options));
  return done.value === undefined ? { pull: undefined, pulledBy: holderLabel(done.holder) } : { pull: done.value, pulledBy: undefined };
}

/** pullFolder with the caller's view and its duration. */
async function timedPull(runtime: Runtime, mapping: Mapping, sync: DesignSync, options: PullOptions): Promise<TimedSummary> {
  const started = runtime.clock.monotonic();
  const view = options.view?.();
  const tracked = options.progress;
  if (tracked !== undefined) Object.assign(tracked, { label: mapping.label, done: 0, total: 0 });
  const progress = (done: number, total: number): void => {
    if (tracked !== undefined) Object.assign(tracked, { done, total });
    view?.update(done, total);
  };
  try {
    const summary = summarizeCycle(await pullFolder(runtime, mapping, sync, options.emit, { send: options.send, progress }));
    return { ...summary, elapsedMs: runtime.clock.monotonic() - started };
  } finally {
    view?.stop();
  }
}

/** Names the process holding a folder, for messages and `pulledBy` in JSON. */
function holderLabel(holder: LockInfo | undefined): string {
  return holder === undefined ? "another mpsync process" : `${holder.command} (pid ${holder.pid})`;
}
