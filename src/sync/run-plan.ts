/**
 * Committing a planned cycle (plan-cycle.ts plans it): a halt is recorded and said, or the plan
 * runs: the journals first, the displaced-edit report, the executor, then the ledger's commit,
 * the folder status, the durability flush and the state save, and the cycle's events.
 */
import { hashContent } from "../core/hash.js";
import { recoveryStamp } from "../local/recovery-layout.js";
import { MpsyncError } from "../core/errors.js";
import type { CycleContext, CycleProgress, CycleReport } from "./cycle-context.js";
import { emitCycleEvents, emitDisplaced } from "./cycle-events.js";
import { pullIntents, pushIntents, readLocalTexts, remoteLabel, type ReadText } from "./cycle-io.js";
import { findDisplaced } from "./displaced.js";
import { sayDeletions } from "./deletion-notice.js";
import { executePlan, type ExecuteResult } from "./executor.js";
import { describeHalt, type SyncPlan } from "./model.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";
import type { WriterVerdicts } from "./races.js";
import type { LedgerReading } from "./base-ledger.js";

/** One planned cycle. */
export interface PlannedCycle {
  plan: SyncPlan;
  remote: RemoteSnapshot;
  /** What the cycle's reads of the ledger found: handed to its commit. */
  reading: LedgerReading;
  /** The refused local names changed (FolderStatus.noteLocalNames): state.json must be saved. */
  refusedLocalMoved: boolean;
  /** What other-writers.ts decided for paths another writer (or our late request) changed (races.ts). */
  writers: WriterVerdicts;
  dryRun: boolean;
  /** False for `mpsync pull`: nothing is sent. */
  send: boolean;
  progress?: CycleProgress | undefined;
  /** Texts a push pass read and journalled before its remote read. */
  preread?: ReadonlyMap<string, ReadText> | undefined;
}

/**
 * Commits a planned cycle: a halted plan is recorded (unless a dry run) and said once; else a
 * halt it ends is said, and the plan runs (runPlan).
 */
export async function commitCycle(ctx: CycleContext, planned: PlannedCycle): Promise<CycleReport> {
  const { options: o, status, editorId } = ctx;
  const { plan, remote, dryRun } = planned;
  const report: CycleReport = { plan, dryRun, result: undefined, artifactId: remote.artifactId, remoteNames: remote.listed, refusedNames: remote.refused };
  for (const r of remote.refused) ctx.notice(`refused remote file name ${JSON.stringify(r.name)}: ${r.reason}`);
  if (plan.halt !== undefined) {
    const why = describeHalt(plan.halt);
    if (!dryRun) {
      status.halt(why, o.clock.now());
      await ctx.save();
    }
    if (ctx.said.halt(why))
      o.emit({ event: "halted", dir: o.dir, editorId, code: "HALTED", message: `needs attention: ${why}; run "mpsync pull --force" to proceed` });
    return report;
  }
  if (dryRun) return report;
  const cleared = status.clearHalt();
  if (cleared !== undefined) {
    ctx.said.haltCleared();
    o.emit({ event: "notice", dir: o.dir, editorId, code: "RESUMED", message: `resumed: syncs again; it needed attention: ${cleared.reason}` });
  }
  report.result = await runPlan(ctx, planned, cleared !== undefined);
  return report;
}

/** Executes `run.plan` and records it; throws the PATCH's error after the rest is saved. */
async function runPlan(ctx: CycleContext, run: PlannedCycle, haltCleared: boolean): Promise<ExecuteResult> {
  const { options: o, ledger, status } = ctx;
  const { plan, remote, writers } = run;
  o.local.beginWrites();
  // The pulls' journal is written while the local writes prepare (reads, backups, temp files):
  // each waits for it only before its file takes the name, and the PATCH goes after it.
  const journaled = pullIntents(o.store, plan, remote).then((pulls) => ledger.intendPulls(pulls));
  journaled.catch(() => undefined); // awaited below; a failure fails the cycle there
  // A conflict's markers name the version: asked while the local texts are read, and once
  // per version, not between the PATCH's decision and the PATCH.
  const label = plan.actions.some((a) => a.kind === "conflict") ? versionLabel(ctx, remote.artifactId) : undefined;
  const localTexts = await readLocalTexts(o.local, plan, run.preread);
  const displaced = await findDisplaced(plan, ledger, remote, o.store);
  const stamp = recoveryStamp(o.clock.now());
  const origin = { dir: o.dir, editorId: ctx.editorId };
  // Said before the files are written: a process killed between the write and the report
  // would leave the edit only in backups, and the next cycle would see nothing to report.
  emitDisplaced(o.emit, origin, displaced, stamp);
  const result = await executePlan(
    { plan, localTexts, remoteTexts: remote.texts, remoteNames: remote.names, refused: (p) => status.refusedContentOf(p), send: run.send },
    {
      local: o.local,
      bases: o.store,
      stamp,
      journaled,
      hashOf: hashContent,
      writeRemote: async (files) => {
        await journaled;
        if (o.holdPushes?.() === true) throw new MpsyncError("GIT_BUSY", "a git operation began during the cycle: the push waits until it ends");
        await ledger.intendPush(await pushIntents(o.store, files, remote));
        await o.client.writeFiles(ctx.editorId, remote.artifactId, files);
      },
      readRemote: async (paths) => new Map((await o.client.readFiles(ctx.editorId, remote.artifactId, paths)).map((f) => [f.name, f.content])),
      listRemote: async () => {
        const active = await o.client.getActiveArtifact(ctx.editorId);
        return active.artifactId === remote.artifactId ? new Set(active.files) : undefined;
      },
      saveConflict: (rel, sides, s) => o.store.saveConflict(rel, sides, s),
      remoteLabel: () => label ?? versionLabel(ctx, remote.artifactId),
      ...(run.progress === undefined ? {} : { progress: run.progress }),
    },
  );
  await journaled;
  // Only a PATCH that was answered clears its journal; a failed one stays for the next cycle.
  const basesMoved = ledger.commit(result.bases, {
    reading: run.reading,
    sent: new Set(result.pushed),
    pushAnswered: result.pushError === undefined,
    artifactId: remote.artifactId,
    mergedBack: writers.mergedBack,
  });
  const refusedLocal = run.refusedLocalMoved;
  status.noteContent(result.refusedContent, result.pushed);
  const moved = status.moveTo(remote.artifactId);
  const changed = basesMoved || plan.actions.some((a) => a.kind !== "report") || moved || haltCleared || refusedLocal;
  // The files must be durable before the state that names them as the new bases.
  await o.local.flush();
  // An idle cycle of a large folder must stay cheap: no state rewrite, no base pruning.
  if (changed) {
    await ctx.save();
    await o.store.pruneBases(ledger.keep());
  } else if (o.store.hasUnsavedCache()) {
    await ctx.save();
  }
  const failures = ctx.said.failures(result);
  emitCycleEvents(o.emit, ctx.notice, origin, { ...result, failed: failures.fresh }, writers.raced, writers.racedByVersion);
  emitWriterNotices(ctx, result, writers);
  if (o.sayDeletions === true) await sayDeletions(ctx, plan);
  ctx.scope.touch([...result.pushed, ...result.pulled, ...result.removed, ...result.conflicts.map((c) => c.path)], o.clock.monotonic());
  for (const p of failures.cleared) o.emit({ ...origin, event: "notice", code: "RESUMED", files: [p], message: `resumed: ${p} is written now` });
  if (result.pushError !== undefined) throw result.pushError;
  return result;
}

/**
 * Said once per event: our merged-back edit removed again (the removal stands), and our own
 * late request recognised (the latest content went out again).
 */
function emitWriterNotices(ctx: CycleContext, result: ExecuteResult, writers: WriterVerdicts): void {
  const pulled = new Set([...result.pulled, ...result.removed]);
  for (const p of writers.removedAgain)
    if (pulled.has(p))
      ctx.notice(`${p}: another writer removed your edit again after mpsync merged it back; their version stands (bring yours back with mpsync restore ${p})`);
  const pushed = new Set(result.pushed);
  for (const p of writers.ownLate)
    if (pushed.has(p)) ctx.notice(`${p}: an earlier push of yours reached the service late and undid newer changes; the latest content was sent again`);
}

/** "remote v7" for `artifactId`, asked once per version. */
function versionLabel(ctx: CycleContext, artifactId: string): Promise<string> {
  let label = ctx.labels.get(artifactId);
  if (label === undefined) {
    label = remoteLabel(ctx.options.client, ctx.editorId, artifactId);
    if (ctx.labels.size > 16) ctx.labels.clear();
    ctx.labels.set(artifactId, label);
  }
  return label;
}
