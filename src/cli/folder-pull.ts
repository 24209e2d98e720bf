/**
 * What the commands share around a pull (src/app/folder.ts does the work): warnings on stderr,
 * the exit code of a pull, and how the process holding a folder is named.
 */
import { pullFolder, withFolder, withFolderIfFree } from "../app/folder.js";
import type { Mapping } from "../runtime.js";
import type { LockInfo } from "../state/lock.js";
import { summarizeCycle, type CycleSummary } from "../sync/cycle-summary.js";
import type { DesignSync } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import { PROGRESS_MIN_FILES } from "./render-plan.js";
import type { CommandContext } from "./context.js";
import { EXIT } from "./exit-codes.js";
import type { PullProgress } from "./interrupt.js";

/** Notices and halts from the engine become warnings on stderr. */
export function warnSink(ctx: CommandContext): EventSink {
  return (e) => {
    if (e.event === "notice" || e.event === "halted") ctx.out.warn(`${e.dir}: ${e.message}`);
  };
}

/** Pulls the mapping's design under the folder's lock (`send`: init --force's full reconcile). */
export async function pullMapped(ctx: CommandContext, mapping: Mapping, command: string, options: { send?: boolean; progress?: PullProgress } = {}): Promise<TimedSummary> {
  const emit = warnSink(ctx);
  return withFolder(ctx.runtime, mapping, { command, emit }, (sync) => timedPull(ctx, mapping, sync, emit, options));
}

/** A pull's summary with how long it took (the totals line says it). */
export type TimedSummary = CycleSummary & { elapsedMs: number };

/** pullFolder with a progress bar on a terminal (PROGRESS_MIN_FILES or more) and its duration. */
async function timedPull(ctx: CommandContext, mapping: Mapping, sync: DesignSync, emit: EventSink, options: { send?: boolean; progress?: PullProgress } = {}): Promise<TimedSummary> {
  const started = ctx.runtime.clock.monotonic();
  const bar = ctx.out.bar("pulling", () => ctx.runtime.clock.monotonic(), PROGRESS_MIN_FILES);
  const tracked = options.progress;
  if (tracked !== undefined) Object.assign(tracked, { dir: mapping.dir, done: 0, total: 0 });
  const progress = (done: number, total: number): void => {
    if (tracked !== undefined) Object.assign(tracked, { done, total });
    bar.update(done, total);
  };
  try {
    const summary = summarizeCycle(await pullFolder(ctx.runtime, mapping, sync, emit, { send: options.send, progress }));
    return { ...summary, elapsedMs: ctx.runtime.clock.monotonic() - started };
  } finally {
    bar.stop();
  }
}

/** pullMapped, unless another process (a daemon) holds the folder: that process pulls. */
export async function pullMappedIfFree(
  ctx: CommandContext,
  mapping: Mapping,
  command: string,
  options: { send?: boolean; progress?: PullProgress } = {},
): Promise<{ pull: TimedSummary | undefined; pulledBy: string | undefined }> {
  const emit = warnSink(ctx);
  const done = await withFolderIfFree(ctx.runtime, mapping, { command, emit }, (sync) => timedPull(ctx, mapping, sync, emit, options));
  return done.value === undefined ? { pull: undefined, pulledBy: holderLabel(done.holder) } : { pull: done.value, pulledBy: undefined };
}

/** The exit code of a pull: 1 halted, 5 unresolved conflicts, else 0. */
export function pullExitCode(summary: CycleSummary | undefined): number {
  if (summary === undefined) return EXIT.ok;
  if (summary.halted !== undefined) return EXIT.failure;
  return summary.unresolvedConflicts.length > 0 ? EXIT.conflicts : EXIT.ok;
}

/** Names the process holding a folder, for messages and `pulledBy` in JSON. */
export function holderLabel(holder: LockInfo | undefined): string {
  return holder === undefined ? "another mpsync process" : `${holder.command} (pid ${holder.pid})`;
}
