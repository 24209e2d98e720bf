/**
 * The steps of a cycle after its plan (cycle.ts runs them in order): a halt said, the pulls'
 * journal, the executor with its ports, the ledger's commit, and the cycle's events.
 */
import { hashContent } from "../core/hash.js";
import { recoveryStamp } from "../local/recovery-layout.js";
import { MpsyncError } from "../core/errors.js";
import type { CycleContext, CycleProgress } from "./cycle-context.js";
import { emitCycleEvents, emitDisplaced } from "./cycle-events.js";
import { pullIntents, pushIntents, readLocalTexts, remoteLabel } from "./cycle-io.js";
import { findDisplaced } from "./displaced.js";
import { sayDeletions } from "./deletion-notice.js";
import { executePlan, type ExecuteResult } from "./executor.js";
import { describeHalt, type HaltReason } from "./model.js";
import type { ReadText } from "./observe-cycle.js";
import type { PlannedCycle } from "./plan-cycle.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";

/** One planned round of a cycle, with what it observed and how it runs. */
export interface Round extends PlannedCycle {
  remote: RemoteSnapshot;
  /** The refused local names changed (FolderStatus.noteLocalNames): state.json must be saved. */
  refusedLocalMoved: boolean;
  dryRun: boolean;
  progress?: CycleProgress | undefined;
  /** Texts a push pass read and journalled before its remote read. */
  preread?: ReadonlyMap<string, ReadText> | undefined;
}

/** Records a halt (unless a dry run) and says it once per reason. */
export async function sayHalt(ctx: CycleContext, halt: HaltReason, dryRun: boolean): Promise<void> {
  const { options: o, status } = ctx;
  const why = describeHalt(halt);
  if (!dryRun) {
    status.halt(why, o.clock.now());
    await ctx.save();
  }
  if (ctx.announced.newHalt(why))
    o.emit({ event: "halted", dir: o.dir, editorId: ctx.editorId, code: "HALTED", message: `needs attention: ${why}; run "mpsync pull --force" to proceed` });
}

/**
 * The pulls' journal, written while the local writes prepare (reads, backups, temp files):
 * each write waits for it only before its file takes the name, and the PATCH goes after it.
 * A failure is left to the caller's await (it fails the cycle there).
 */
export function journalPulls(ctx: CycleContext, round: Round): Promise<void> {
  const journaled = pullIntents(ctx.options.store, round.plan, round.remote).then((pulls) => ctx.ledger.intendPulls(pulls));
  journaled.catch(() => undefined);
  return journaled;
}

/** Executes the round's plan: the texts it sends read, displaced edits said, then the executor. */
export async function executeRound(ctx: CycleContext, round: Round, journaled: Promise<void>): Promise<ExecuteResult> {
  const { options: o, ledger, status } = ctx;
  const { plan, remote } = round;
  // A conflict's markers name the version: asked while the local texts are read, and once
  // per version, not between the PATCH's decision and the PATCH.
  const label = plan.actions.some((a) => a.kind === "conflict") ? versionLabel(ctx, remote.artifactId) : undefined;
  const localTexts = await readLocalTexts(o.local, plan, round.preread);
  const displaced = await findDisplaced(plan, ledger, remote, o.store);
  const stamp = recoveryStamp(o.clock.now());
  // Said before the files are written: a process killed between the write and the report
  // would leave the edit only in backups, and the next cycle would see nothing to report.
  emitDisplaced(o.emit, { dir: o.dir, editorId: ctx.editorId }, displaced, stamp);
  return executePlan(
    { plan, localTexts, remoteTexts: remote.texts, remoteNames: remote.names, refused: (p) => status.refusedContentOf(p) },
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
      ...(round.progress === undefined ? {} : { progress: round.progress }),
    },
  );
}

/**
 * The ledger and the folder status take what the executor confirmed. Only a PATCH that was
 * answered clears its journal; a failed one stays for the next cycle. True when the state
 * changed and must be saved.
 */
export function commitLedger(ctx: CycleContext, round: Round, result: ExecuteResult): boolean {
  const { ledger, status } = ctx;
  const { plan, remote } = round;
  const basesMoved = ledger.commit(result.bases, {
    reading: round.reading,
    sent: new Set(result.pushed),
    pushAnswered: result.pushError === undefined,
    artifactId: remote.artifactId,
    mergedBack: round.writers.mergedBack,
  });
  status.noteContent(result.refusedContent, result.pushed);
  const moved = status.moveTo(remote.artifactId);
  return basesMoved || plan.actions.some((a) => a.kind !== "report") || moved || round.refusedLocalMoved;
}

/** The round's events: failures and their end said once, writers' notices, deletions, the sweep's recent files. */
export async function reportOutcome(ctx: CycleContext, round: Round, result: ExecuteResult): Promise<void> {
  const { options: o } = ctx;
  const origin = { dir: o.dir, editorId: ctx.editorId };
  const failures = ctx.announced.writeFailures(result);
  emitCycleEvents(o.emit, ctx.notice, origin, { ...result, failed: failures.fresh }, round.writers.raced, round.writers.racedByVersion);
  emitWriterNotices(ctx, result, round);
  if (o.sayDeletions === true) await sayDeletions(ctx, round.plan);
  ctx.scope.touch([...result.pushed, ...result.pulled, ...result.removed, ...result.conflicts.map((c) => c.path)], o.clock.monotonic());
  for (const p of failures.cleared) o.emit({ ...origin, event: "notice", code: "RESUMED", files: [p], message: `resumed: ${p} is written now` });
}

/**
 * Said once per event: our merged-back edit removed again (the removal stands), and our own
 * late request recognised (the latest content went out again).
 */
function emitWriterNotices(ctx: CycleContext, result: ExecuteResult, round: Round): void {
  const { writers } = round;
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
