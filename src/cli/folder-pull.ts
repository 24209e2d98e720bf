/**
 * Pulling a mapped folder from a one-shot command: under the folder's lock, or, when a
 * daemon holds it, leaving the pull to that daemon rather than syncing the folder twice.
 */
import { hasCode } from "../api/errors.js";
import type { Mapping } from "../runtime.js";
import { commitAfterCycle } from "../git/pull-committer.js";
import { acquireFolderLock, readFolderLock, type FolderLock, type LockInfo } from "../state/lock.js";
import { summarizeCycle, type CycleSummary } from "../sync/cycle-summary.js";
import type { DesignSync } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import type { CommandContext } from "./context.js";
import { EXIT } from "./exit-codes.js";

/** The folder's lock when this process got it, else who holds it. */
export type FolderHold = { lock: FolderLock; holder?: undefined } | { lock?: undefined; holder: LockInfo | undefined };

/** Takes the folder lock, or reports the live process that holds it. */
export async function holdFolder(root: string, command: string): Promise<FolderHold> {
  try {
    return { lock: await acquireFolderLock(root, { command }) };
  } catch (err) {
    if (!hasCode(err, "FOLDER_LOCKED")) throw err;
    return { holder: await readFolderLock(root) };
  }
}

/** Notices and halts from the engine become warnings on stderr. */
export function warnSink(ctx: CommandContext): EventSink {
  return (e) => {
    if (e.event === "notice" || e.event === "halted") ctx.out.warn(`${e.dir}: ${e.message}`);
  };
}

/**
 * Runs a full cycle (local edits reconciled, never discarded), commits the pulled version
 * when `git.commitOnPull` is on, and summarizes it.
 */
export async function pullDesign(ctx: CommandContext, mapping: Mapping, sync: DesignSync, options: { send?: boolean } = {}): Promise<CycleSummary> {
  // A pull only brings changes in (local edits wait for push or watch), except `init --force`,
  // whose reconcile the user asked for.
  const report = await sync.fullSync({ pullOnly: options.send !== true });
  await commitAfterCycle(ctx.runtime, mapping, sync.editorId, report, warnSink(ctx));
  return summarizeCycle(report);
}

/** Opens the mapping's design and pulls it, holding the folder lock throughout. */
export async function pullUnderLock(ctx: CommandContext, mapping: Mapping, command: string, options: { send?: boolean } = {}): Promise<CycleSummary> {
  const lock = await acquireFolderLock(mapping.root, { command });
  try {
    const sync = await ctx.runtime.openDesign(mapping, warnSink(ctx), { holdsLock: true });
    return await pullDesign(ctx, mapping, sync, options);
  } finally {
    await lock.release();
  }
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
