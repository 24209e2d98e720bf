/**
 * Planning a cycle, as a pure function of what the cycle observed (observe-cycle.ts): the
 * triples (plan-triples.ts), the other writers' verdicts (races.ts), and reconcile with the
 * cycle's mode. Writes nothing and imports no I/O (test/docs/pure-core.test.ts): the cycle
 * (cycle.ts) journals, executes and records what it returns.
 */
import type { LedgerReading } from "./ledger-reading.js";
import type { ConflictPolicy, ReconcileInput, SyncPlan } from "./model.js";
import type { FullObservation } from "./observe-cycle.js";
import { buildTriples, type Triples, type TriplesContext } from "./plan-triples.js";
import { judgeWriters, type EditTexts, type WriterVerdicts } from "./races.js";
import { reconcile } from "./reconcile.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";

/** How a cycle's reconcile is set, beside its triples. */
export type PlanSettings = Omit<ReconcileInput, "files">;

/** A cycle's plan and what planning found, for the cycle to apply. */
export interface PlannedCycle {
  plan: SyncPlan;
  /** What the ledger's reads found: handed to its commit. */
  reading: LedgerReading;
  /** What other-writers.ts decided for paths another writer (or our late request) changed. */
  writers: WriterVerdicts;
  /** Local names judged (path -> reason refused, undefined: not refused): FolderStatus.noteLocalNames. */
  localNames: Map<string, string | undefined>;
  /** Notices to give, in order (a local name refused for the first time). */
  notices: string[];
}

/** The triples of `paths` (plan-triples.ts). */
export function planTriples(
  paths: ReadonlySet<string>,
  localOf: Parameters<typeof buildTriples>[1],
  remote: RemoteSnapshot,
  readAt: number,
  ctx: TriplesContext,
): Triples {
  return buildTriples(new Set(paths), localOf, remote, readAt, ctx);
}

/**
 * The plan: the writers' verdicts rebase the triples of races and of our own late requests
 * (`editTexts`: the stored texts their judge compares), then reconcile decides every path.
 */
export function planCycle(triples: Triples, editTexts: EditTexts, remote: RemoteSnapshot, readAt: number, settings: PlanSettings): PlannedCycle {
  const judged = judgeWriters(triples.files, triples.reading.contested, remote, editTexts, readAt);
  const plan = reconcile({ ...settings, files: judged.files });
  return { plan, reading: triples.reading, writers: judged.verdicts, localNames: triples.localNames, notices: triples.notices };
}

/** A full pass's reconcile settings (`scoped`: a content check's slice). */
export function fullPlanSettings(
  seen: FullObservation,
  options: { force?: boolean; pullOnly?: boolean },
  policy: ConflictPolicy,
  syncedCount: number,
  scoped: boolean,
): PlanSettings {
  return {
    policy,
    mode: options.pullOnly === true ? "pull-only" : "two-way",
    force: options.force === true,
    restoreDeleted: options.force === true,
    // A folder that never held synced files did not vanish: the first pull creates it.
    folderExists: seen.exists || syncedCount === 0,
    fullRemote: true,
    // Refused names count: an artifact of only hostile names is not "empty".
    remoteFileCount: seen.remote.listed.length,
    // A content check judges a slice: the breakers still count the whole folder.
    ...(scoped ? { localFileCount: seen.scan.size } : {}),
  };
}

/** A push pass's reconcile settings: its paths only, so the breakers count no totals from them. */
export function pushPlanSettings(policy: ConflictPolicy): PlanSettings {
  return { policy, force: false, folderExists: true, fullRemote: false };
}
