import { describe, expect, it } from "vitest";
import { expandPaths } from "./observe-cycle.js";

describe("expandPaths", () => {
  const known = ["a/b.ts", "a/c/d.ts", "ab/e.ts", "f.ts", "dist/x.js"];
  it("adds every synced file below a folder path, at any depth, and nothing from a sibling sharing its prefix", () => {
    expect([...expandPaths(["a"], known, () => false)].sort()).toEqual(["a", "a/b.ts", "a/c/d.ts"]);
    expect([...expandPaths(["a/c/"], known, () => false)].sort()).toEqual(["a/c", "a/c/d.ts"]);
  });
  it("keeps file paths as they are and drops ignored and empty ones", () => {
    expect([...expandPaths(["f.ts", "new.ts", "dist", "/"], known, (p) => p === "dist")].sort()).toEqual(["f.ts", "new.ts"]);
  });
});
