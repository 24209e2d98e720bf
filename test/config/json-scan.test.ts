import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonSyntaxError, lineColumnAt, scanJson } from "../../src/config/json-scan.js";

describe("scanJson", () => {
  it("accepts exactly what JSON.parse accepts", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.json().map((j) => j.slice(1)),
        ),
        (text) => {
          let parsed = true;
          try {
            JSON.parse(text);
          } catch {
            parsed = false;
          }
          let scanned = true;
          try {
            scanJson(text);
          } catch (error) {
            expect(error).toBeInstanceOf(JsonSyntaxError);
            scanned = false;
          }
          expect(scanned).toBe(parsed);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("gives the spans of members and items", () => {
    const text = '{ "a": [1, "x"], "b": {} }';
    const root = scanJson(text);
    const a = root.members?.[0];
    expect(a?.key).toBe("a");
    expect(text.slice(a?.value.start, a?.value.end)).toBe('[1, "x"]');
    expect(a?.value.items?.map((item) => text.slice(item.start, item.end))).toEqual(["1", '"x"']);
    expect(root.members?.[1]?.value.kind).toBe("object");
  });

  it("counts lines and columns from 1", () => {
    expect(lineColumnAt("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});
