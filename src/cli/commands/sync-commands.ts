/** `pull` and `push`: one-shot sync of every mapping or the named folders. */
import { hasCode, MpsyncError } from "../../core/errors.js";
import type { Mapping } from "../../runtime.js";
import type { CycleReport, DesignSync } from "../../sync/design-sync.js";
import type { SyncEvent } from "../../sync/events.js";
import { summarizeCycle, type CycleSummary } from "../../sync/cycle-summary.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { findIgnoredSecrets } from "../../local/secret-scan.js";
import { PROGRESS_MIN_FILES, renderPlan } from "../render-plan.js";
import { waitUntilIdle } from "../../app/design-status.js";
import { idleWaitView } from "../wait-view.js";
import { commitAfterCycle, withFolder } from "../../app/folder.js";
import { describeProgress, untilInterrupted } from "../interrupt.js";
import { newPullProgress, type PullProgress } from "../../app/folder-pull.js";
import { sendControl } from "../../daemon/control-channel.js";

interface OneShotFlags {
  dryRun?: boolean;
  force?: boolean;
}

/** `mpsync pull`. */
export function runPull(ctx: CommandContext, dirs: string[], flags: OneShotFlags): Promise<number> {
  return runOneShot(ctx, dirs, flags, "pull");
}

/** `mpsync push`. */
export function runPush(ctx: CommandContext, dirs: string[], flags: OneShotFlags): Promise<number> {
  return runOneShot(ctx, dirs, flags, "push");
}

async function runOneShot(ctx: CommandContext, dirs: string[], flags: OneShotFlags, kind: "pull" | "push"): Promise<number> {
  const progress = newPullProgress();
  const resume = `mpsync ${kind}${dirs.length > 0 ? ` ${dirs.join(" ")}` : ""}`;
  return untilInterrupted(ctx, () => runOneShotWork(ctx, dirs, flags, kind, progress), () =>
    flags.dryRun === true
      ? "nothing was changed (a dry run)"
      : `${kind} stopped ${describeProgress(progress)}; what was written is kept (replaced files are in .mpsync/backups/); run "${resume}" to finish`,
  );
}

async function runOneShotWork(ctx: CommandContext, dirs: string[], flags: OneShotFlags, kind: "pull" | "push", progress: PullProgress): Promise<number> {
  const results: (CycleSummary & { dir: string; editorId: string; skippedSecrets?: string[]; elapsedMs: number })[] = [];
  const events: SyncEvent[] = [];
  const emit = (e: SyncEvent): void => {
    events.push(e);
    if (e.event === "notice" || e.event === "halted") ctx.out.warn(`${e.dir}: ${e.message}`);
  };
  for (const mapping of await ctx.runtime.mappings(dirs)) {
    try {
      const started = ctx.runtime.clock.monotonic();
      Object.assign(progress, { dir: mapping.dir, done: 0, total: 0 });
      const one = await syncOne(ctx, mapping, flags, kind, emit, progress);
      progress.finished.push(mapping.dir);
      results.push({ ...one, elapsedMs: ctx.runtime.clock.monotonic() - started });
    } catch (err) {
      // A design with no version yet (first generation running) is not a failure: nothing to do.
      if (!hasCode(err, "NO_ARTIFACT")) throw err;
      emit({ event: "notice", dir: mapping.dir, code: "NO_ARTIFACT", message: err instanceof Error ? err.message : String(err) });
    }
  }
  const dryRun = flags.dryRun === true;
  ctx.out.result({ ok: results.every((r) => r.halted === undefined), dryRun, designs: results, events }, () => {
    for (const r of results) {
      renderPlan(ctx.out, r, dryRun, r.elapsedMs);
      for (const s of r.skippedSecrets ?? []) {
        ctx.out.info(`  ${ctx.out.c.dim("·")} ${s} ${ctx.out.c.dim(`skipped: looks like a secret, never synced (to sync it anyway, add "!${s}" to ignore)`)}`);
      }
    }
  });
  if (results.some((r) => r.halted !== undefined)) return EXIT.failure;
  return results.some((r) => r.unresolvedConflicts.length > 0) ? EXIT.conflicts : EXIT.ok;
}

async function syncOne(
  ctx: CommandContext,
  mapping: Mapping,
  flags: OneShotFlags,
  kind: "pull" | "push",
  emit: (e: SyncEvent) => void,
  progress: PullProgress,
): Promise<CycleSummary & { dir: string; editorId: string; skippedSecrets?: string[] }> {
  const dryRun = flags.dryRun === true;
  try {
    return await syncLocked(ctx, mapping, flags, kind, emit, progress);
  } catch (err) {
    // `pull --force`, the advice of a halted folder, must work while `watch` holds it: the
    // daemon takes the request and runs a forced full cycle.
    if (!(kind === "pull" && flags.force === true && !dryRun && hasCode(err, "FOLDER_LOCKED"))) throw err;
    const reply = await sendControl(mapping.root, { op: "sync", force: true });
    if (reply === undefined) throw err;
    if (reply.summary === undefined) throw new MpsyncError("FOLDER_LOCKED", `${mapping.dir}: the running daemon could not run pull --force: ${reply.message}`);
    ctx.out.info(ctx.out.c.dim(`${mapping.dir}: pull --force handed to the running daemon: ${reply.message}`));
    return { ...(reply.summary as unknown as CycleSummary), dir: mapping.dir, editorId: String(reply.summary["editorId"] ?? "") };
  }
}

async function syncLocked(
  ctx: CommandContext,
  mapping: Mapping,
  flags: OneShotFlags,
  kind: "pull" | "push",
  emit: (e: SyncEvent) => void,
  progress: PullProgress,
): Promise<CycleSummary & { dir: string; editorId: string; skippedSecrets?: string[] }> {
  const dryRun = flags.dryRun === true;
  // A dry run changes nothing, so it may look while the daemon holds the folder.
  return withFolder(ctx.runtime, mapping, { command: `mpsync ${kind}`, lock: !dryRun, emit }, async (sync) => {
    const report = await runCycle(ctx, sync, kind, flags, progress);
    await commitAfterCycle(ctx.runtime, mapping, sync.editorId, report, emit, (p) => sync.baseText(p));
    // A push dry run also says which secret-looking files stay home.
    const skippedSecrets = kind === "push" && dryRun ? await findIgnoredSecrets(mapping.root, sync.matcher) : undefined;
    return { dir: mapping.dir, editorId: sync.editorId, ...summarizeCycle(report), ...(skippedSecrets === undefined ? {} : { skippedSecrets }) };
  });
}

async function runCycle(
  ctx: CommandContext,
  sync: DesignSync,
  kind: "pull" | "push",
  flags: OneShotFlags,
  progress: PullProgress,
): Promise<CycleReport | undefined> {
  const dryRun = flags.dryRun === true;
  // `pull` only brings remote changes in: local edits wait for push or watch (README, "How sync works").
  if (kind === "pull") {
    const bar = ctx.out.bar("pulling", () => ctx.runtime.clock.monotonic(), PROGRESS_MIN_FILES);
    try {
      const onProgress = (done: number, total: number): void => {
        Object.assign(progress, { done, total });
        bar.update(done, total);
      };
      return await sync.fullSync({ force: flags.force === true, dryRun, pullOnly: true, progress: onProgress });
    } finally {
      bar.stop();
    }
  }
  // Pushes wait while the design is generating (README, "How sync works"); then pull and reconcile first.
  const generating = await waitUntilIdle(ctx.runtime, sync, { wait: !dryRun, watch: idleWaitView(ctx) });
  if (generating) {
    throw new MpsyncError("GENERATING", "the design is generating: nothing was pushed", { hint: "run mpsync push again when it is idle" });
  }
  // Never synced: there is no base to tell a push from a pull, and push writes no local file
  // but the merge of one it pushes. The first sync is a pull (or init --force).
  if (sync.state.artifactId === undefined) {
    throw new MpsyncError("USAGE", `${sync.dir} was never synced: nothing was pushed`, {
      hint: `run mpsync pull ${sync.dir} first (local files are kept and listed as waiting to be pushed), then mpsync push`,
    });
  }
  const changed = await sync.localChangeSet();
  // A large push is one PATCH: a spinner with the count while it travels (a terminal only moves it).
  const spinner = !dryRun && changed.size >= PROGRESS_MIN_FILES ? ctx.out.progress(`pushing ${changed.size.toLocaleString("en-US")} changed files`) : undefined;
  try {
    return await sync.pushPaths(changed.keys(), { dryRun, seen: changed });
  } finally {
    spinner?.stop();
  }
}
