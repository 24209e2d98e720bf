import { describe, expect, it } from "vitest";
import { SaidOnce } from "./said-once.js";

const cycle = (failed: [string, string][], pulled: string[] = []) => ({
  failed: failed.map(([path, code]) => ({ path, code, message: code })),
  pulled,
  removed: [],
  conflicts: [],
});

describe("SaidOnce", () => {
  it("says a halt once per reason, again after it cleared", () => {
    const said = new SaidOnce();
    expect([said.halt("a"), said.halt("a"), said.halt("b"), said.halt("b")]).toEqual([true, false, true, false]);
    said.haltCleared();
    expect(said.halt("b")).toBe(true);
  });

  it("says a path failure once per code, and its end once when the path is written", () => {
    const said = new SaidOnce();
    expect(said.failures(cycle([["a.ts", "EPERM"]])).fresh.map((f) => f.path)).toEqual(["a.ts"]);
    expect(said.failures(cycle([["a.ts", "EPERM"]])).fresh).toEqual([]);
    expect(said.failures(cycle([["a.ts", "ENOSPC"]])).fresh.map((f) => f.code)).toEqual(["ENOSPC"]);
    expect(said.failures(cycle([], ["a.ts", "b.ts"])).cleared).toEqual(["a.ts"]);
    expect(said.failures(cycle([], ["a.ts"])).cleared).toEqual([]);
    expect(said.failures(cycle([["a.ts", "EPERM"]])).fresh).toHaveLength(1);
  });
});
