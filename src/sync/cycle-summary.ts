/** A flat, JSON-friendly summary of a cycle (what `pull`/`push` print and return). */
import type { CycleReport } from "./design-sync.js";
import { describeHalt, type ReportReason } from "./model.js";

/** What a cycle did, or with a dry run what it would do. */
export interface CycleSummary {
  artifactId: string | undefined;
  pushed: string[];
  pulled: string[];
  removed: string[];
  conflicts: string[];
  unresolvedConflicts: string[];
  reports: { path: string; reason: ReportReason }[];
  refusedNames: { name: string; reason: string }[];
  halted: string | undefined;
}

/** Summarizes a cycle; `undefined` (nothing differed) is an empty summary. */
export function summarizeCycle(report: CycleReport | undefined): CycleSummary {
  const empty: CycleSummary = {
    artifactId: report?.artifactId,
    pushed: [],
    pulled: [],
    removed: [],
    conflicts: [],
    unresolvedConflicts: [],
    reports: [],
    refusedNames: report?.refusedNames ?? [],
    halted: report?.plan.halt === undefined ? undefined : describeHalt(report.plan.halt),
  };
  if (report === undefined) return empty;
  for (const a of report.plan.actions) {
    if (a.kind === "report") {
      empty.reports.push({ path: a.path, reason: a.reason });
      if (a.reason === "unresolved-markers") empty.unresolvedConflicts.push(a.path);
    }
  }
  const r = report.result;
  if (r !== undefined) {
    return {
      ...empty,
      pushed: r.pushed,
      pulled: r.pulled,
      removed: r.removed,
      conflicts: r.conflicts.map((c) => c.path),
      unresolvedConflicts: [...empty.unresolvedConflicts, ...r.conflicts.filter((c) => c.unresolved).map((c) => c.path)],
      reports: [...empty.reports, ...r.notSent.map((path) => ({ path, reason: "waiting-to-push" as const }))],
    };
  }
  // Dry run (or halted): the plan's intent.
  const of = (kind: string): string[] => report.plan.actions.filter((a) => a.kind === kind).map((a) => a.path);
  return { ...empty, pushed: of("push"), pulled: of("pull"), removed: of("remove-local"), conflicts: of("conflict") };
}
