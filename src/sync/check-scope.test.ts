import { describe, expect, it } from "vitest";
import { CHECK_SWEEP_ROUNDS, CheckScope, RECENT_MAX_PER_CYCLE, RECENT_MS } from "./check-scope.js";

const KNOWN = Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, "0")}.ts`);

describe("CheckScope (which files a content check reads)", () => {
  it("every file is read by one of CHECK_SWEEP_ROUNDS consecutive checks, from wherever the sweep stands", () => {
    const scope = new CheckScope();
    scope.read(scope.next(KNOWN, 0), KNOWN); // the sweep starts somewhere
    const seen = new Set<string>();
    for (let i = 0; i < CHECK_SWEEP_ROUNDS; i += 1) {
      const read = scope.next(KNOWN, 0);
      scope.read(read, KNOWN);
      for (const p of read) seen.add(p);
    }
    expect([...seen].sort()).toEqual(KNOWN);
  });

  it("a check that failed (never marked read) leaves its files first in line", () => {
    const scope = new CheckScope();
    const failed = scope.next(KNOWN, 0);
    expect(scope.next(KNOWN, 0)).toEqual(failed);
    scope.read(failed, KNOWN);
    expect([...scope.next(KNOWN, 0)].some((p) => failed.has(p))).toBe(false);
  });

  it("files turning recent and back, and new files, never push a file past CHECK_SWEEP_ROUNDS unread checks", () => {
    const scope = new CheckScope();
    let known = [...KNOWN];
    const sinceRead = new Map(known.map((p) => [p, 0]));
    let now = 0;
    for (let check = 0; check < 400; check += 1) {
      // Churn: a file edited here (recent for an hour), now and then a new file, a removed one.
      if (check % 3 === 0) scope.touch([known[(check * 7) % known.length]!], now);
      if (check % 11 === 0) {
        known = [...known, `new${check}.ts`];
        sinceRead.set(`new${check}.ts`, 0);
      }
      if (check % 13 === 0) known = known.filter((p) => p !== known[check % known.length]);
      now += RECENT_MS / 7;
      const read = scope.next(known, now);
      scope.read(read, known);
      for (const p of known) {
        const n = read.has(p) ? 0 : (sinceRead.get(p) ?? 0) + 1;
        sinceRead.set(p, n);
        expect(n, `${p} at check ${check}`).toBeLessThan(CHECK_SWEEP_ROUNDS);
      }
    }
  });

  it("reads a tenth of the cold files per check, and every recent file each time until it is an hour old", () => {
    const scope = new CheckScope();
    scope.touch(["f24.ts"], 0);
    const first = scope.next(KNOWN, 1_000);
    expect(first.has("f24.ts")).toBe(true);
    expect(first.size).toBe(1 + Math.ceil(24 / CHECK_SWEEP_ROUNDS));
    expect(scope.next(KNOWN, RECENT_MS).has("f24.ts")).toBe(true);
    const later = scope.next(KNOWN, RECENT_MS + 1);
    expect(later.size).toBe(Math.ceil(25 / CHECK_SWEEP_ROUNDS));
  });

  it("a recent path that is not synced (yet) is still read", () => {
    const scope = new CheckScope();
    scope.touch(["new.ts"], 0);
    expect(scope.next([], 0)).toEqual(new Set(["new.ts"]));
  });

  it("a cycle that changed more than RECENT_MAX_PER_CYCLE files (a first pull) marks none recent", () => {
    const scope = new CheckScope();
    const many = Array.from({ length: RECENT_MAX_PER_CYCLE + 1 }, (_, i) => `m${i}.ts`);
    scope.touch(many, 0);
    expect(scope.next(many, 0).size).toBe(Math.ceil(many.length / CHECK_SWEEP_ROUNDS));
  });

  it("a first check after a (re)start takes the files modified in the last hour as recent, once", () => {
    const scope = new CheckScope();
    const wall = 10 * RECENT_MS;
    // f00 saved a minute ago, f01 exactly an hour ago, f02 just over, f03 "in the future" (clock went back).
    scope.seed(
      [
        ["f00.ts", wall - 60_000],
        ["f01.ts", wall - RECENT_MS],
        ["f02.ts", wall - RECENT_MS - 1],
        ["f03.ts", wall + 5_000],
      ],
      wall,
      500,
    );
    const first = scope.next(KNOWN, 500);
    for (const p of ["f00.ts", "f01.ts", "f03.ts"]) expect(first.has(p), p).toBe(true);
    const cold = KNOWN.filter((p) => !["f00.ts", "f01.ts", "f03.ts"].includes(p));
    expect(first.size).toBe(3 + Math.ceil(cold.length / CHECK_SWEEP_ROUNDS));
    // Each stays recent for what is left of its hour, measured on the monotonic clock (the
    // sweep moved on: f01 is not in the next cold slice).
    scope.read(first, KNOWN);
    const later = scope.next(KNOWN, 500 + 60_000);
    expect([later.has("f00.ts"), later.has("f01.ts"), later.has("f03.ts")]).toEqual([true, false, true]);
  });

  it("seeds once per run: a later check's seed adds nothing", () => {
    const scope = new CheckScope();
    scope.seed([], 1_000, 0);
    scope.seed([["f10.ts", 1_000]], 1_000, 0);
    expect(scope.next(KNOWN, 0).size).toBe(Math.ceil(KNOWN.length / CHECK_SWEEP_ROUNDS));
  });

  it("a seed of more than RECENT_MAX_PER_CYCLE recent files (a checkout touched them all) marks none", () => {
    const scope = new CheckScope();
    const many = Array.from({ length: RECENT_MAX_PER_CYCLE + 1 }, (_, i) => `m${i}.ts`);
    scope.seed(
      many.map((p): [string, number] => [p, 1_000]),
      2_000,
      0,
    );
    expect(scope.next(many, 0).size).toBe(Math.ceil(many.length / CHECK_SWEEP_ROUNDS));
  });
});
