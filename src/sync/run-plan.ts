/**
 * Runs one reconciled plan of a folder's cycle (DesignSync plans it): the journals first, the
 * displaced-edit report, the executor, then the ledger's commit, the durability flush and
 * the state save, and the cycle's events. Kept apart from planning so each half stays readable.
 */
import { hashContent } from "../core/hash.js";
import { recoveryStamp } from "../local/recovery-layout.js";
import { MpsyncError } from "../core/errors.js";
import type { BaseLedger } from "./base-ledger.js";
import type { CheckScope } from "./check-scope.js";
import { emitCycleEvents, emitDisplaced } from "./cycle-events.js";
import { pullIntents, pushIntents, readLocalTexts, remoteLabel, type ReadText } from "./cycle-io.js";
import type { V3Client } from "../api/client-types.js";
import type { Clock } from "../core/clock.js";
import type { EventSink } from "./events.js";
import { findDisplaced } from "./displaced.js";
import { executePlan, type ExecuteResult } from "./executor.js";
import type { SyncPlan } from "./model.js";
import type { DesignStore, LocalTree } from "./ports.js";
import type { FolderStatus } from "./folder-status.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";
import type { SaidOnce } from "./said-once.js";

/** Told after each file a cycle writes, removes or merges (done of total): a progress bar. */
export type CycleProgress = (done: number, total: number) => void;

/** The parts of DesignSyncOptions a run uses. */
export interface PlanRunOptions {
  dir: string;
  client: V3Client;
  local: LocalTree;
  store: DesignStore;
  emit: EventSink;
  clock: Clock;
  holdPushes?: () => boolean;
}

/** What a run needs of its DesignSync: the folder's options, state and per-folder memories. */
export interface PlanRunContext {
  options: PlanRunOptions;
  editorId: string;
  status: FolderStatus;
  ledger: BaseLedger;
  said: SaidOnce;
  scope: CheckScope;
  /** artifactId -> "remote v7" (a version's label never changes: asked once). */
  labels: Map<string, Promise<string>>;
  notice(message: string): void;
  save(): Promise<void>;
  /** True (once) when the refused local names moved this cycle: state.json must be saved. */
  takeRefusedLocalChanged(): boolean;
}

/** One planned cycle. */
export interface PlannedRun {
  plan: SyncPlan;
  remote: RemoteSnapshot;
  /** Paths reconciled from what our raced PATCH replaced (races.ts): said as re-applied. */
  raced: ReadonlySet<string>;
  haltCleared: boolean;
  send: boolean;
  progress?: CycleProgress | undefined;
  /** Texts a push pass read and journalled before its remote read. */
  preread?: ReadonlyMap<string, ReadText> | undefined;
}

/** Executes `run.plan` and records it; throws the PATCH's error after the rest is saved. */
export async function runPlan(ctx: PlanRunContext, run: PlannedRun): Promise<ExecuteResult> {
  const { options: o, ledger, status } = ctx;
  const { plan, remote, raced } = run;
  o.local.beginWrites?.();
  // A conflict's markers name the version: asked while the local texts are read, and once
  // per version, not between the PATCH's decision and the PATCH.
  const label = plan.actions.some((a) => a.kind === "conflict") ? versionLabel(ctx, remote.artifactId) : undefined;
  const localTexts = await readLocalTexts(o.local, plan, run.preread);
  const displaced = await findDisplaced(plan, ledger, remote, o.store);
  await ledger.intendPulls(await pullIntents(o.store, plan, remote));
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
      hashOf: hashContent,
      writeRemote: async (files) => {
        if (o.holdPushes?.() === true) throw new MpsyncError("GIT_BUSY", "a git operation began during the cycle: the push waits until it ends");
        await ledger.intendPush(await pushIntents(o.store, files, remote));
        await o.client.writeFiles(ctx.editorId, remote.artifactId, files);
      },
      saveConflict: (rel, sides, s) => o.store.saveConflict(rel, sides, s),
      remoteLabel: () => label ?? versionLabel(ctx, remote.artifactId),
      ...(run.progress === undefined ? {} : { progress: run.progress }),
    },
  );
  // Only a PATCH that was answered clears its journal; a failed one stays for the next cycle.
  const basesMoved = ledger.commit(result.bases, { pushAnswered: result.pushError === undefined, artifactId: remote.artifactId });
  const refusedLocal = ctx.takeRefusedLocalChanged();
  status.noteContent(result.refusedContent, result.pushed);
  const moved = status.moveTo(remote.artifactId);
  const changed = basesMoved || plan.actions.some((a) => a.kind !== "report") || moved || run.haltCleared || refusedLocal;
  // The files must be durable before the state that names them as the new bases.
  await o.local.flush?.();
  // An idle cycle of a large folder must stay cheap: no state rewrite, no base pruning.
  if (changed) {
    await ctx.save();
    await o.store.pruneBases(ledger.keep());
  } else if (o.store.hasUnsavedCache?.() === true) {
    await ctx.save();
  }
  const failures = ctx.said.failures(result);
  emitCycleEvents(o.emit, ctx.notice, origin, { ...result, failed: failures.fresh }, raced);
  ctx.scope.touch([...result.pushed, ...result.pulled, ...result.removed, ...result.conflicts.map((c) => c.path)], o.clock.monotonic());
  for (const p of failures.cleared) o.emit({ ...origin, event: "notice", code: "RESUMED", files: [p], message: `resumed: ${p} is written now` });
  if (result.pushError !== undefined) throw result.pushError;
  return result;
}

/** "remote v7" for `artifactId`, asked once per version. */
function versionLabel(ctx: PlanRunContext, artifactId: string): Promise<string> {
  let label = ctx.labels.get(artifactId);
  if (label === undefined) {
    label = remoteLabel(ctx.options.client, ctx.editorId, artifactId);
    if (ctx.labels.size > 16) ctx.labels.clear();
    ctx.labels.set(artifactId, label);
  }
  return label;
}
