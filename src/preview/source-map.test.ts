import { describe, expect, it } from "vitest";
import { bundlePlace, originalPlace } from "./source-map.js";

// Generated line 1 maps col 0 -> a.tsx 1:0; line 2: col 2 -> b.tsx 5:4, col 10 -> b.tsx 6:0.
const MAP = JSON.stringify({ version: 3, sources: ["a.tsx", "b.tsx"], mappings: "AAAA;ECII,QACJ" });

describe("source maps", () => {
  it("maps a bundle place back to the source file and line", () => {
    expect(originalPlace(MAP, 1, 1)).toEqual({ source: "a.tsx", line: 1, column: 1 });
    expect(originalPlace(MAP, 2, 5)).toEqual({ source: "b.tsx", line: 5, column: 5 });
    expect(originalPlace(MAP, 2, 12)).toEqual({ source: "b.tsx", line: 6, column: 1 });
    expect(originalPlace(MAP, 9, 1)).toBeUndefined();
    expect(originalPlace("not json", 1, 1)).toBeUndefined();
  });

  it("finds the first place in the bundle in a stack", () => {
    expect(bundlePlace("TypeError: x\n    at App (http://127.0.0.1:5180/__mpsync/out/app.js:120:33)\n")).toEqual({ line: 120, column: 33 });
    expect(bundlePlace("at http://127.0.0.1:5180/__mpsync/out/app.js?v=2:7:1")).toEqual({ line: 7, column: 1 });
    expect(bundlePlace("at somewhere.js:1:1")).toBeUndefined();
  });
});
