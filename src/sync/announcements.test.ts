import { describe, expect, it } from "vitest";
import { Announcements } from "./announcements.js";

const cycle = (failed: [string, string][], pulled: string[] = []) => ({
  failed: failed.map(([path, code]) => ({ path, code, message: code })),
  pulled,
  removed: [],
  conflicts: [],
});

describe("Announcements", () => {
  it("announces a halt once per reason, again after it cleared", () => {
    const said = new Announcements();
    expect([said.newHalt("a"), said.newHalt("a"), said.newHalt("b"), said.newHalt("b")]).toEqual([true, false, true, false]);
    said.haltEnded();
    expect(said.newHalt("b")).toBe(true);
  });

  it("announces a path failure once per code, and its end once when the path is written", () => {
    const said = new Announcements();
    expect(said.writeFailures(cycle([["a.ts", "EPERM"]])).fresh.map((f) => f.path)).toEqual(["a.ts"]);
    expect(said.writeFailures(cycle([["a.ts", "EPERM"]])).fresh).toEqual([]);
    expect(said.writeFailures(cycle([["a.ts", "ENOSPC"]])).fresh.map((f) => f.code)).toEqual(["ENOSPC"]);
    expect(said.writeFailures(cycle([], ["a.ts", "b.ts"])).cleared).toEqual(["a.ts"]);
    expect(said.writeFailures(cycle([], ["a.ts"])).cleared).toEqual([]);
    expect(said.writeFailures(cycle([["a.ts", "EPERM"]])).fresh).toHaveLength(1);
  });
});
