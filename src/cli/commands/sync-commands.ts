/** `pull` and `push`: one-shot sync of every mapping or the named folders. */
import { hasCode } from "../../core/errors.js";
import type { SyncEvent } from "../../sync/events.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { PROGRESS_MIN_FILES, renderPlan } from "../render-plan.js";
import { idleWaitView } from "../wait-view.js";
import { syncOnce, type OneShotSummary, type OneShotView } from "../../app/one-shot.js";
import { describeProgress, untilInterrupted } from "../interrupt.js";
import { newPullProgress, type PullProgress } from "../../app/folder-pull.js";
import { warnSink } from "../folder-pull.js";

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
  return untilInterrupted(
    ctx,
    () => runOneShotWork(ctx, dirs, flags, kind, progress),
    () =>
      flags.dryRun === true
        ? "nothing was changed (a dry run)"
        : `${kind} stopped ${describeProgress(progress)}; what was written is kept (replaced files are in .mpsync/backups/); run "${resume}" to finish`,
  );
}

async function runOneShotWork(ctx: CommandContext, dirs: string[], flags: OneShotFlags, kind: "pull" | "push", progress: PullProgress): Promise<number> {
  const results: (OneShotSummary & { elapsedMs: number })[] = [];
  const events: SyncEvent[] = [];
  const warn = warnSink(ctx);
  const emit = (e: SyncEvent): void => {
    events.push(e);
    warn(e);
  };
  for (const mapping of await ctx.runtime.mappings(dirs)) {
    try {
      const started = ctx.runtime.clock.monotonic();
      Object.assign(progress, { label: mapping.label, done: 0, total: 0 });
      const one = await syncOnce(ctx.runtime, mapping, {
        kind,
        dryRun: flags.dryRun === true,
        force: flags.force === true,
        emit,
        progress,
        view: oneShotView(ctx),
      });
      progress.finished.push(mapping.label);
      results.push({ ...one, elapsedMs: ctx.runtime.clock.monotonic() - started });
    } catch (err) {
      // A design with no version yet (first generation running) is not a failure: nothing to do.
      if (!hasCode(err, "NO_ARTIFACT")) throw err;
      emit({ event: "notice", dir: mapping.dir, code: "NO_ARTIFACT", message: err instanceof Error ? err.message : String(err) });
    }
  }
  const dryRun = flags.dryRun === true;
  ctx.out.result("pull", { ok: results.every((r) => r.halted === undefined), dryRun, designs: results, events }, () => {
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

/** The bar of a pull, the spinner of a large push, the wait for a generation, the daemon's word. */
function oneShotView(ctx: CommandContext): OneShotView {
  return {
    pull: () => ctx.out.bar("pulling", () => ctx.runtime.clock.monotonic(), PROGRESS_MIN_FILES),
    // A large push is one PATCH: a spinner with the count while it travels (a terminal only moves it).
    pushing: (count) => {
      if (count < PROGRESS_MIN_FILES) return () => undefined;
      const spinner = ctx.out.progress(`pushing ${count.toLocaleString("en-US")} changed files`);
      return () => spinner.stop();
    },
    idle: idleWaitView(ctx),
    handedOver: (label, message) => ctx.out.info(ctx.out.c.dim(`${label}: pull --force handed to the running daemon: ${message}`)),
  };
}
