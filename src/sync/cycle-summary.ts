/**
 * A flat, JSON-friendly summary of a cycle (what `pull`/`push` print and return; the daemon's
 * answer to a handed-over `sync`). Its schema is part of every --json document that carries a
 * cycle (app/json-documents.ts); `reason` accepts every ReportReason (summarizeCycle fails to
 * compile otherwise).
 */
import * as z from "zod";
import type { CycleReport } from "./design-sync.js";
import { describeHalt } from "./model.js";

const text = z.string();
const paths = z.array(z.string()).describe("paths inside the mapped folder");

/** What a cycle did, or with a dry run what it would do. */
export const cycleSummarySchema = z.strictObject({
  artifactId: text.optional().describe("the version the cycle synced with"),
  pushed: paths,
  pulled: paths,
  removed: paths,
  conflicts: paths,
  unresolvedConflicts: paths,
  reports: z.array(
    z.strictObject({
      path: text,
      reason: z.enum(["deleted-locally", "binary-not-pushed", "unresolved-markers", "remote-name-refused", "waiting-to-push"]),
    }),
  ),
  refusedNames: z.array(z.strictObject({ name: text, reason: text })).describe("remote names mpsync will not write here"),
  halted: text.optional().describe("why the folder needs attention (mpsync pull --force)"),
});

/** What a cycle did, or with a dry run what it would do. */
export type CycleSummary = z.output<typeof cycleSummarySchema>;

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
