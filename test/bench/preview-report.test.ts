/**
 * The preview bench's arithmetic (scripts/bench/preview-report.mjs): the ratio it reports is
 * the median of each round's own ratio, not a ratio of pooled medians, so a round run under
 * heavy load weighs on neither side alone; a figure not measured says so.
 */
import { describe, expect, it } from "vitest";
import { poolRounds, PREVIEW_HEADER, previewRows, ratioText } from "../../scripts/bench/preview-report.mjs";

const side = (cold: number, css: number[], component: number[]) => ({ coldStartMs: [cold], cssSaveMs: css, componentSaveMs: component, cpuMs: [cold * 2] });

describe("preview bench report", () => {
  it("takes the median over rounds of mpsync's median / the own vite's median in the same round", () => {
    const pooled = poolRounds([
      // A quiet round, a loaded round (everything 4x), a quiet round.
      { mpsync: side(1000, [100, 120, 110], [200, 220, 210]), vite: side(500, [100, 100, 100], [100, 100, 100]) },
      { mpsync: side(4000, [440, 480, 400], [800, 880, 840]), vite: side(2000, [400, 400, 400], [400, 400, 400]) },
      { mpsync: side(1200, [130, 100, 110], [250, 200, 210]), vite: side(600, [110, 100, 100], [100, 100, 100]) },
    ]);
    expect(pooled.ratio.coldStartMs.median).toBe(2);
    expect(pooled.ratio.componentSaveMs.median).toBeCloseTo(2.1, 5);
    expect(pooled.ratio.cssSaveMs.n).toBe(3);
    expect(pooled.mpsync.cssSaveMs.n).toBe(9);
    expect(pooled.vite.coldStartMs.median).toBe(600);
  });

  it("drops a round a side measured nothing in, and prints missing figures as not measured", () => {
    const pooled = poolRounds([
      { mpsync: side(1000, [], [200]), vite: side(500, [100], [100]) },
      { mpsync: side(1000, [150], [200]), vite: side(500, [100], [100]) },
    ]);
    expect(pooled.ratio.cssSaveMs.n).toBe(1);
    expect(pooled.ratio.cssSaveMs.median).toBe(1.5);
    const rows = previewRows({ pooled, fetch: undefined, firstRun: { mpsyncMs: 3000, viteMs: 2000 } });
    expect(rows.every((r) => r.length === PREVIEW_HEADER.length)).toBe(true);
    expect(rows[0]).toContain("1.50x (rounds 1.50-1.50)");
    expect(rows[3]).toContain("2000 ms");
    expect(rows[4]).toContain("not measured");
    expect(rows[5]).toContain("1.50x");
    expect(ratioText(1, 0)).toBe("");
    expect(ratioText(undefined, 2)).toBe("");
  });
});
