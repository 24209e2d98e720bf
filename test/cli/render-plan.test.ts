/** What a pull, push or sync prints for one design: its totals count what each conflict came to. */
import { describe, expect, it } from "vitest";
import { totalsLine } from "../../src/cli/render-plan.js";
import { summarizeCycle, type CycleSummary } from "../../src/sync/cycle-summary.js";

const summary = (over: Partial<CycleSummary>): CycleSummary => ({ ...summarizeCycle(undefined), ...over });

describe("totalsLine", () => {
  it.each<[string, Partial<CycleSummary>, boolean, string]>([
    // A clean merge is not a conflict waiting for the person: exit code 0, and the line says so.
    ["a clean merge", { pulled: ["a.tsx"], conflicts: ["App.tsx"] }, false, "pulled 1 file, 1 conflict resolved"],
    ["markers left", { conflicts: ["App.tsx", "b.ts"], unresolvedConflicts: ["App.tsx"] }, false, "1 conflict resolved, 1 conflict left with markers"],
    // Markers from an earlier cycle are reported on their own line, not counted as this cycle's.
    ["old markers", { pushed: ["x.ts"], unresolvedConflicts: ["old.ts"] }, false, "pushed 1 file"],
    ["a dry run cannot tell", { conflicts: ["App.tsx", "b.ts"] }, true, "2 conflicts"],
    ["many files", { pulled: Array.from({ length: 3000 }, (_, i) => `f${i}`), pushed: ["a", "b"] }, false, "pulled 3,000 files, pushed 2 files"],
  ])("%s", (_name, over, dryRun, line) => {
    expect(totalsLine(summary(over), dryRun)).toBe(line);
  });
});
