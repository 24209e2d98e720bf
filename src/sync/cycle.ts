/**
 * One sync cycle of one folder, top to bottom:
 *
 *   observe   the local side, then the remote side, as values (observe-cycle.ts)
 *   plan      triples, other writers' verdicts, reconcile with the cycle's mode: pure (plan-cycle.ts)
 *   journal   base texts and intents in state.json, before anything is written or sent
 *   execute   local writes by compare-and-swap, then the PATCH (executor.ts)
 *   commit    the ledger takes the base moves the executor confirmed
 *   save      files flushed, then the state that names them
 *   events    what the cycle did, said once (cycle-steps.ts)
 *   confirm   what was pushed is read back; a path another writer replaced is planned again as
 *             the next round of the same loop (a bounded number of rounds)
 *
 * A full cycle looks at every path (or a content check's slice); a push pass at the paths that
 * changed locally. A push pass that finds the folder gone or the version moved needs a full
 * pass: the observation says so and `runRound` decides, in one place.
 */
import { MpsyncError } from "../core/errors.js";
import type { CycleContext, CycleReport } from "./cycle-context.js";
import { commitLedger, executeRound, journalPulls, reportOutcome, sayHalt, type Round } from "./cycle-steps.js";
import { journalPushTexts } from "./cycle-io.js";
import type { LocalFile } from "./model.js";
import { observeFull, observePushLocal, observePushRemote, readEditTexts, type FullSyncOptions, type PushOptions, type ReadText } from "./observe-cycle.js";
import { fullPlanSettings, planCycle, planTriples, pushPlanSettings, type PlanSettings } from "./plan-cycle.js";
import { readBackPushed } from "./read-back.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";
import { localNameJudge } from "../local/path-jail.js";

/** Rounds of read-back and re-apply after one push, so two clients cannot ping-pong for ever. */
export const MAX_REAPPLY_ROUNDS = 2;

/** What a cycle is asked to do. */
export type CycleRequest =
  | {
      kind: "full";
      options: FullSyncOptions;
      /** A content check's slice, and the check's scan (check-scope.ts). */
      scope?: ReadonlySet<string>;
      scan?: Map<string, LocalFile>;
      /** The files the content checks' sweep counts as read when the cycle is not halted ("all": every synced file). */
      sweep?: ReadonlySet<string> | "all";
    }
  | { kind: "push"; paths: Iterable<string>; options: PushOptions };

/** What one round observed, ready to plan. */
interface Observed {
  kind: "observed";
  paths: ReadonlySet<string>;
  localOf: (path: string) => LocalFile | undefined;
  remote: RemoteSnapshot;
  /** Monotonic time the remote read was sent. */
  readAt: number;
  settings: PlanSettings;
  /** Texts a push pass read (and journalled) before its remote read. */
  preread?: ReadonlyMap<string, ReadText> | undefined;
}

/** A push pass that must become a full pass. */
type NeedsFull = { kind: "needs-full"; why: "folder-gone" } | { kind: "needs-full"; why: "version-moved"; artifactId: string };

/**
 * Runs `request`, then reads back what it pushed: each path another writer replaced meanwhile
 * (read-back.ts), or that changed before a later PATCH part, is reconciled again (races.ts):
 * merged and pushed, or marked. Undefined: a push pass found nothing changed (no request at all).
 */
export async function runCycle(ctx: CycleContext, request: CycleRequest): Promise<CycleReport | undefined> {
  const first = await runRound(ctx, request);
  let last = first;
  for (let round = 0; round < MAX_REAPPLY_ROUNDS && last !== undefined; round += 1) {
    if (last.dryRun || last.result === undefined) break;
    const replaced = await readBackPushed(ctx.options.client, ctx.editorId, last.artifactId, last.result);
    const raced = [...replaced, ...last.result.remoteMoved];
    if (raced.length === 0) break;
    last = await runRound(ctx, { kind: "push", paths: raced, options: { verify: true } });
  }
  return first;
}

/** One round: observe, plan, then (unless halted or a dry run) journal, execute, commit, save, events. */
async function runRound(ctx: CycleContext, asked: CycleRequest): Promise<CycleReport | undefined> {
  const { options: o, status } = ctx;
  let request = asked;
  let seen = await observe(ctx, request);
  if (seen === undefined) return undefined;
  if (seen.kind === "needs-full") {
    // The folder vanished or was emptied (only a full pass's breakers judge that), or the
    // active version moved (a generation, another version picked): the whole folder is pulled
    // and reconciled first, the local edits with it.
    if (seen.why === "version-moved") ctx.notice(`active artifact changed to ${seen.artifactId}: pulling before pushing`);
    request = { kind: "full", options: { dryRun: request.options.dryRun === true } };
    seen = await observe(ctx, request);
    if (seen?.kind !== "observed") throw new MpsyncError("INTERNAL", "a full pass observed nothing");
  }
  // Plan: pure, from the values observed.
  const triples = planTriples(seen.paths, seen.localOf, seen.remote, seen.readAt, {
    ledger: ctx.ledger,
    ignores: (p) => o.local.ignores(p),
    refusedLocalOf: (p) => status.refusedLocalOf(p),
    judgeName: (r) => localNameJudge(r.listed),
  });
  // The writers' judge compares stored texts: read here, so that planning reads nothing.
  const editTexts = await readEditTexts(o.store, triples.reading.contested);
  const planned = planCycle(triples, editTexts, seen.remote, seen.readAt, seen.settings);
  // What planning found about local names goes to the folder status; then the plan is acted on.
  const refusedLocalMoved = status.noteLocalNames(planned.localNames);
  for (const n of planned.notices) ctx.notice(n);
  const round: Round = {
    ...planned,
    remote: seen.remote,
    refusedLocalMoved,
    dryRun: request.options.dryRun === true,
    progress: request.kind === "full" ? request.options.progress : undefined,
    preread: seen.preread,
  };
  const report = await act(ctx, round);
  if (request.kind === "full") {
    report.wholeFolder = true;
    // A cycle that read its files moves the content checks' sweep on; after a halt, the next reads them.
    if (request.sweep !== undefined && report.plan.halt === undefined) {
      const known = ctx.ledger.paths();
      ctx.scope.read(request.sweep === "all" ? known : request.sweep, known);
    }
  }
  return report;
}

/** Observes `request`; undefined: a push pass whose paths all equal their base. */
async function observe(ctx: CycleContext, request: CycleRequest): Promise<Observed | NeedsFull | undefined> {
  const { options: o, ledger } = ctx;
  if (request.kind === "full") {
    const seen = await observeFull(ctx, request.options, request.scope, request.scan);
    const settings = fullPlanSettings(seen, request.options, o.policy, ledger.paths().length, request.scope !== undefined);
    return { kind: "observed", paths: seen.paths, localOf: (p) => seen.scan.get(p), remote: seen.remote, readAt: seen.readAt, settings };
  }
  const local = await observePushLocal(ctx, request.paths, request.options);
  if (local.kind === "unchanged") return undefined;
  ctx.scope.touch(local.changed, o.clock.monotonic());
  if (local.kind === "needs-full") return local;
  // Journalled before the remote read: the read the plan rests on and the PATCH then have no
  // disk write between them.
  if (local.toSend !== undefined) await journalPushTexts(o.store, ledger, local.toSend);
  const read = await observePushRemote(ctx, local.changed);
  if (read.kind === "needs-full") return read;
  return {
    kind: "observed",
    paths: new Set(local.changed),
    localOf: (p) => local.locals.get(p),
    remote: read.remote,
    readAt: read.readAt,
    settings: pushPlanSettings(o.policy),
    preread: local.toSend,
  };
}

/**
 * A planned round: a halted plan is recorded (unless a dry run) and said once; otherwise a halt
 * it ends is said, and the plan is journalled, executed, committed, saved and reported.
 */
async function act(ctx: CycleContext, round: Round): Promise<CycleReport> {
  const { options: o, status } = ctx;
  const { plan, remote, dryRun } = round;
  const report: CycleReport = { plan, dryRun, result: undefined, artifactId: remote.artifactId, remoteNames: remote.listed, refusedNames: remote.refused };
  for (const r of remote.refused) ctx.notice(`refused remote file name ${JSON.stringify(r.name)}: ${r.reason}`);
  if (plan.halt !== undefined) {
    await sayHalt(ctx, plan.halt, dryRun);
    return report;
  }
  if (dryRun) return report;
  const cleared = status.clearHalt();
  if (cleared !== undefined) {
    ctx.announced.haltEnded();
    o.emit({ event: "notice", dir: o.dir, editorId: ctx.editorId, code: "RESUMED", message: `resumed: syncs again; it needed attention: ${cleared.reason}` });
  }
  o.local.beginWrites();
  const journaled = journalPulls(ctx, round);
  const result = await executeRound(ctx, round, journaled);
  await journaled;
  const changed = commitLedger(ctx, round, result) || cleared !== undefined;
  // The files must be durable before the state that names them as the new bases.
  await o.local.flush();
  // An idle cycle of a large folder must stay cheap: no state rewrite, no base pruning.
  if (changed) {
    await ctx.save();
    await o.store.pruneBases(ctx.ledger.keep());
  } else if (o.store.hasUnsavedCache()) {
    await ctx.save();
  }
  await reportOutcome(ctx, round, result);
  // The PATCH's error fails the cycle only once the rest is saved and said.
  if (result.pushError !== undefined) throw result.pushError;
  report.result = result;
  return report;
}
