import { describe, expect, it } from "vitest";
import { LOCAL_ACTION_CONCURRENCY, spreadByFolder } from "./executor.js";

const folderOf = (p: string): string => p.slice(0, p.lastIndexOf("/") + 1);

describe("spreadByFolder: the order the local actions run in", () => {
  it("takes one path of each folder in turn, keeping each folder's order", () => {
    const paths = ["a/1", "a/2", "a/3", "b/1", "root.ts", "b/2", "c/d/1"].map((path) => ({ path }));
    expect(spreadByFolder(paths).map((a) => a.path)).toEqual(["a/1", "b/1", "root.ts", "c/d/1", "a/2", "b/2", "a/3"]);
  });

  it("puts the writes in flight at once in different folders while there are enough folders", () => {
    // A pull's sorted plan: 40 folders of 50 files, as the bench's 2,000-file design.
    const paths = Array.from({ length: 2000 }, (_, i) => ({ path: `src/d${String(Math.floor(i / 50)).padStart(3, "0")}/c${i}.tsx` }));
    const spread = spreadByFolder(paths);
    expect(new Set(spread)).toEqual(new Set(paths));
    expect(spread.length).toBe(paths.length);
    for (let i = 0; i + LOCAL_ACTION_CONCURRENCY <= spread.length; i += LOCAL_ACTION_CONCURRENCY) {
      expect(new Set(spread.slice(i, i + LOCAL_ACTION_CONCURRENCY).map((a) => folderOf(a.path))).size).toBe(LOCAL_ACTION_CONCURRENCY);
    }
  });

  it("leaves a one-folder plan as it is; a folder holding half of 40,000 paths runs last alone", () => {
    const one = ["x/1", "x/2"].map((path) => ({ path }));
    expect(spreadByFolder(one)).toEqual(one);
    const uneven = [...Array.from({ length: 20_000 }, (_, i) => ({ path: `big/${i}` })), ...Array.from({ length: 20_000 }, (_, i) => ({ path: `f${i}/x` }))];
    const spread = spreadByFolder(uneven);
    expect(spread.slice(0, 3).map((a) => a.path)).toEqual(["big/0", "f0/x", "f1/x"]);
    expect(spread.at(-1)?.path).toBe("big/19999");
  });
});
