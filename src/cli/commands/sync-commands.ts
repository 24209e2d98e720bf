/** `pull`, `push` and `status`: one-shot sync of every mapping or the named folders. */
import type { Command } from "commander";
import { hasCode, MpsyncError } from "../../core/errors.js";
import type { Mapping } from "../../runtime.js";
import type { CycleReport, DesignSync } from "../../sync/design-sync.js";
import type { SyncEvent } from "../../sync/events.js";
import { summarizeCycle, type CycleSummary } from "../../sync/cycle-summary.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo, CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { findIgnoredSecrets } from "../../local/secret-scan.js";
import { PROGRESS_MIN_FILES, renderPlan } from "../render-plan.js";
import { collectStatus, renderStatus, type DesignStatusReport } from "./status-report.js";
import { waitUntilIdle } from "../wait-idle.js";
import { commitAfterCycle, withFolder } from "../../app/folder.js";
import { clockTime } from "../../log/clock-time.js";
import { describeProgress, newPullProgress, untilInterrupted, type PullProgress } from "../interrupt.js";

interface OneShotFlags {
  dryRun?: boolean;
  force?: boolean;
}

/** Registers pull, push and status. */
export function registerSyncCommands(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("pull")
    .description("bring remote changes into the mapped folders (local edits are reconciled, never discarded)")
    .argument("[dir...]", "mapped folders (default: all)")
    .option("--dry-run", "print the plan, change nothing")
    .option("--force", "proceed past a circuit breaker (mass delete, empty remote, emptied folder)")
    .addHelpText("after", "\nExamples:\n  $ mpsync pull\n  $ mpsync pull web --dry-run\n  $ mpsync pull --force   # after checking why a design was halted")
    .action(action(io, exit, (ctx, dirs: string[], flags: OneShotFlags) => runOneShot(ctx, dirs, flags, "pull")));

  program
    .command("push")
    .description("send local changes (the remote is checked first: its edits are reconciled, never overwritten)")
    .argument("[dir...]", "mapped folders (default: all)")
    .option("--dry-run", "print the plan, change nothing")
    .addHelpText("after", "\nExamples:\n  $ mpsync push\n  $ mpsync push --dry-run --json")
    .action(action(io, exit, (ctx, dirs: string[], flags: OneShotFlags) => runOneShot(ctx, dirs, flags, "push")));

  program
    .command("status")
    .description("local and remote changes, conflicts, generating or idle, active version, daemon")
    .argument("[dir...]", "mapped folders (default: all)")
    .option("--watch", "a live view, redrawn until Ctrl-C (the service is asked at most once per pollIntervalSec)")
    .addHelpText("after", "\nExamples:\n  $ mpsync status\n  $ mpsync status --watch\n  $ mpsync status --json | jq '.designs[].localChanges'")
    .action(
      action(io, exit, async (ctx, dirs: string[], flags: { watch?: boolean }) => {
        if (flags.watch === true) return watchStatus(ctx, dirs);
        const reports: DesignStatusReport[] = [];
        for (const mapping of await ctx.runtime.mappings(dirs)) reports.push(await collectStatus(ctx, mapping));
        const failed = reports.filter((r) => r.errorCode !== undefined);
        const key = { ...ctx.runtime.keySource(), serviceUrl: ctx.runtime.baseUrl() };
        ctx.out.result({ ok: failed.length === 0, designs: reports, key }, () => {
          renderStatus(ctx.out, reports);
          ctx.out.info(ctx.out.c.dim(`service ${key.serviceUrl}, ${describeKey(key)}`));
        });
        // A design that could not be read is a failure (3 when the key or access is the cause).
        if (failed.some((r) => ["UNAUTHORIZED", "FORBIDDEN", "NO_API_KEY"].includes(r.errorCode ?? ""))) return EXIT.auth;
        // A design that needs attention (halted) is a failure too: scripts must not read "ok".
        return failed.length > 0 || reports.some((r) => r.halted !== undefined) ? EXIT.failure : EXIT.ok;
      }),
    );
}

/** Screen refreshes of `status --watch` (ages move); the service is asked less often (below). */
export const STATUS_WATCH_REDRAW_MS = 1000;

/**
 * `status --watch`: like Mutagen's `sync monitor`, every mapping redrawn in place on a terminal
 * (one JSON line per collection with --json, one report per collection when piped).
 * Collections are at most one per pollIntervalSec (at least 2 s): status reads the design's
 * files, which must stay bounded on the real service. Ends with exit 0 on Ctrl-C.
 */
async function watchStatus(ctx: CommandContext, dirs: string[]): Promise<number> {
  const config = await ctx.runtime.config();
  const collectMs = Math.max(2000, config.config.pollIntervalSec * 1000);
  const live = ctx.io.stdout.isTTY === true && !ctx.out.opts.json;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const offInt = ctx.io.onSignal("SIGINT", () => stop());
  const offTerm = ctx.io.onSignal("SIGTERM", () => stop());
  try {
    let reports: DesignStatusReport[] = [];
    let collectedAt = 0;
    // Ages and the next collection are measured on the monotonic clock; `at` stays wall time.
    let collectedMono = Number.NEGATIVE_INFINITY;
    let ended = false;
    void stopped.then(() => (ended = true));
    while (!ended) {
      if (ctx.runtime.clock.monotonic() - collectedMono >= collectMs) {
        reports = [];
        for (const mapping of await ctx.runtime.mappings(dirs)) reports.push(await collectStatus(ctx, mapping));
        collectedAt = ctx.runtime.clock.now();
        collectedMono = ctx.runtime.clock.monotonic();
        if (ctx.out.opts.json) {
          // JSON Lines: one status document per collection.
          ctx.io.stdout.write(`${JSON.stringify({ ok: reports.every((r) => r.errorCode === undefined), at: new Date(collectedAt).toISOString(), designs: reports })}\n`);
        } else if (!live) {
          renderStatus(ctx.out, reports);
          ctx.out.info("");
        }
      }
      if (live) {
        // Home, clear below: one redraw in place per tick.
        ctx.io.stdout.write("\x1b[H\x1b[2J");
        ctx.out.info(ctx.out.c.bold(`mpsync status --watch  (${clockTime(ctx.runtime.clock.now())}; Ctrl-C to stop)`));
        ctx.out.info("");
        renderStatus(ctx.out, reports);
        const next = Math.max(0, Math.round((collectedMono + collectMs - ctx.runtime.clock.monotonic()) / 1000));
        ctx.out.info(ctx.out.c.dim(`asked the service ${Math.round((ctx.runtime.clock.monotonic() - collectedMono) / 1000)} s ago; next in ${next} s`));
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise((resolve) => (timer = setTimeout(resolve, live ? STATUS_WATCH_REDRAW_MS : collectMs)))]);
      clearTimeout(timer);
    }
  } finally {
    offInt();
    offTerm();
  }
  return EXIT.ok;
}

/** Which key status used, never the key: "key from MP_API_KEY", "stored key for <address>". */
function describeKey(key: { source: "env" | "file" | "none"; baseUrl?: string | undefined }): string {
  if (key.source === "env") return "key from MP_API_KEY";
  if (key.source === "none") return "no key (mpsync login)";
  return key.baseUrl === undefined ? "stored key (saved by an older mpsync, for any address)" : `stored key for ${key.baseUrl}`;
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
  const generating = await waitUntilIdle(ctx, sync, { wait: !dryRun });
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
