import { describe, expect, it } from "vitest";
import { backoffCeilingMs, CYCLE_BACKOFF, equalJitterMs, fullJitterMs, REQUEST_BACKOFF } from "../../src/scheduling/backoff.js";

const backoff = { baseMs: 100, maxMs: 1000 };

describe("the one backoff", () => {
  it("doubles from baseMs and stops at maxMs", () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffCeilingMs(n, backoff))).toEqual([100, 200, 400, 800, 1000, 1000]);
    // Far past the cap (a daemon offline for days) the wait stays finite.
    expect(backoffCeilingMs(5000, backoff)).toBe(1000);
  });

  it("full jitter stays within [0, ceiling), in whole ms", () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const ceiling = backoffCeilingMs(attempt, backoff);
      expect(fullJitterMs(attempt, backoff, 0)).toBe(0);
      expect(fullJitterMs(attempt, backoff, 0.999999)).toBeLessThan(ceiling);
      expect(Number.isInteger(fullJitterMs(attempt, backoff, 0.37))).toBe(true);
    }
  });

  it("equal jitter stays within [ceiling / 2, ceiling)", () => {
    expect(equalJitterMs(0, backoff, 0)).toBe(50);
    expect(equalJitterMs(2, backoff, 0.5)).toBe(300);
    expect(equalJitterMs(9, backoff, 0.999)).toBeLessThan(1000);
    expect(equalJitterMs(9, backoff, 0)).toBe(500);
  });

  it("has the documented defaults", () => {
    expect(REQUEST_BACKOFF).toEqual({ baseMs: 500, maxMs: 30_000 });
    expect(CYCLE_BACKOFF).toEqual({ baseMs: 1000, maxMs: 60_000 });
  });
});
