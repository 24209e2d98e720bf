import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasConflictMarkers } from "../core/markers.js";
import { mergeText, resolveConflict } from "./merge.js";
import type { ConflictPolicy } from "./model.js";

const label = "remote v7";
const merge = (base: string | undefined, local: string, remote: string) => mergeText({ base, local, remote, remoteLabel: label });

describe("mergeText", () => {
  it("writes exactly the specified conflict block", () => {
    const result = merge("a\nb\nc\n", "a\nL1\nL2\nc\n", "a\nR\nc\n");
    expect(result).toEqual({
      clean: false,
      conflicts: 1,
      text: "a\n<<<<<<< local\nL1\nL2\n||||||| base\nb\n=======\nR\n>>>>>>> remote v7\nc\n",
    });
    expect(hasConflictMarkers(result.text)).toBe(true);
  });

  it("merges disjoint edits cleanly", () => {
    expect(merge("1\n2\n3\n4\n5\n", "one\n2\n3\n4\n5\n", "1\n2\n3\n4\nfive\n")).toEqual({ clean: true, text: "one\n2\n3\n4\nfive\n" });
  });

  it("merges identical changes on both sides cleanly", () => {
    expect(merge("a\nb\n", "a\nB\nc\n", "a\nB\nc\n")).toEqual({ clean: true, text: "a\nB\nc\n" });
    // The same edit inside a region both sides touched (a false conflict) also merges.
    expect(merge("a\nb\nc\nd\ne\n", "a\nX\nc\nd\nE\n", "a\nX\nc\nd\ne\n")).toEqual({ clean: true, text: "a\nX\nc\nd\nE\n" });
  });

  it("treats a missing base as empty: equal sides are clean, different sides conflict whole", () => {
    expect(merge(undefined, "x\n", "x\n")).toEqual({ clean: true, text: "x\n" });
    expect(merge(undefined, "x\n", "y\n")).toEqual({
      clean: false,
      conflicts: 1,
      text: "<<<<<<< local\nx\n||||||| base\n=======\ny\n>>>>>>> remote v7\n",
    });
  });

  it("keeps CRLF files CRLF, markers included", () => {
    const result = merge("a\r\nb\r\nc\r\n", "a\r\nL\r\nc\r\n", "a\r\nR\r\nc\r\n");
    expect(result.text).toBe("a\r\n<<<<<<< local\r\nL\r\n||||||| base\r\nb\r\n=======\r\nR\r\n>>>>>>> remote v7\r\nc\r\n");
    expect(merge("1\r\n2\r\n3\r\n4\r\n", "x\r\n2\r\n3\r\n4\r\n", "1\r\n2\r\n3\r\ny\r\n").text).toBe("x\r\n2\r\n3\r\ny\r\n");
  });

  it("takes a line-ending conversion from one side and content edits from the other", () => {
    const result = merge("1\r\n2\r\n3\r\n", "1\n2\n3\n", "1\r\n2\r\nthree\r\n");
    expect(result).toEqual({ clean: true, text: "1\n2\nthree\n" });
  });

  it("follows the side that changed the final newline", () => {
    expect(merge("a\nb\nc", "A\nb\nc", "a\nb\nc\n")).toEqual({ clean: true, text: "A\nb\nc\n" });
    expect(merge("a\nb\nc\n", "A\nb\nc\n", "a\nb\nc")).toEqual({ clean: true, text: "A\nb\nc" });
  });

  it("ends a trailing conflict block with a newline even when neither side did", () => {
    const result = merge("a\nb", "a\nL", "a\nR");
    expect(result.text).toBe("a\n<<<<<<< local\nL\n||||||| base\nb\n=======\nR\n>>>>>>> remote v7\n");
  });

  it("normalizes the remote label into a marker that hasConflictMarkers recognizes", () => {
    for (const remoteLabel of ["v7", "remote v7", "", "remote\nv7"]) {
      const result = mergeText({ base: "b\n", local: "l\n", remote: "r\n", remoteLabel });
      expect(hasConflictMarkers(result.text)).toBe(true);
    }
  });

  it("merges to an empty file when both sides emptied it differently", () => {
    expect(merge("a\nb\n", "", "")).toEqual({ clean: true, text: "" });
  });
});

const lineArb = fc.string({ maxLength: 6 }).filter((s) => !/[\r\n]/.test(s));
const textArb = fc.tuple(fc.array(lineArb, { maxLength: 8 }), fc.constantFrom("\n", "\r\n"), fc.boolean()).map(([lines, eol, final]) => {
  if (lines.length === 0) return "";
  return lines.join(eol) + (final ? eol : "");
});

describe("mergeText properties", () => {
  it("when only one side changed, the result is that side, clean", () => {
    fc.assert(
      fc.property(fc.option(textArb, { nil: undefined }), textArb, (base, changed) => {
        const b = base ?? "";
        expect(mergeText({ base, local: changed, remote: b, remoteLabel: label })).toEqual({ clean: true, text: changed });
        expect(mergeText({ base, local: b, remote: changed, remoteLabel: label })).toEqual({ clean: true, text: changed });
      }),
    );
  });

  it("merge(base, x, x) is clean and equals x", () => {
    fc.assert(
      fc.property(fc.option(textArb, { nil: undefined }), textArb, (base, x) => {
        expect(merge(base, x, x)).toEqual({ clean: true, text: x });
      }),
    );
  });

  it("edits separated by an untouched line merge cleanly and keep both", () => {
    const arb = fc
      .integer({ min: 3, max: 12 })
      .chain((n) =>
        fc
          .tuple(fc.constant(n), fc.integer({ min: 0, max: n - 3 }))
          .chain(([size, i]) => fc.tuple(fc.constant(size), fc.constant(i), fc.integer({ min: i + 2, max: size - 1 }))),
      );
    fc.assert(
      fc.property(arb, fc.constantFrom("\n", "\r\n"), ([n, i, j], eol) => {
        const base = Array.from({ length: n }, (_, k) => `line ${k}`);
        const local = base.map((l, k) => (k === i ? "local edit" : l));
        const remote = base.map((l, k) => (k === j ? "remote edit" : l));
        const expected = local.map((l, k) => (k === j ? "remote edit" : l));
        const join = (lines: string[]) => lines.join(eol) + eol;
        expect(merge(join(base), join(local), join(remote))).toEqual({ clean: true, text: join(expected) });
      }),
    );
  });

  it("every unclean result holds well-formed marker blocks and the two sides' lines", () => {
    fc.assert(
      fc.property(textArb, textArb, textArb, (base, local, remote) => {
        const result = merge(base, local, remote);
        if (result.clean) {
          // A clean merge adds no markers of its own.
          if (!hasConflictMarkers(local + remote + base)) expect(hasConflictMarkers(result.text)).toBe(false);
          return;
        }
        const lines = result.text.split(/\r?\n/);
        const count = (marker: string) => lines.filter((l) => l === marker).length;
        for (const marker of ["<<<<<<< local", "||||||| base", "=======", ">>>>>>> remote v7"]) {
          expect(count(marker)).toBeGreaterThanOrEqual(result.conflicts);
        }
        expect(hasConflictMarkers(result.text)).toBe(true);
      }),
    );
  });
});

describe("resolveConflict", () => {
  const base = "a\nb\nc\n";
  const resolve = (policy: ConflictPolicy, local: string | undefined, remote: string, localBlocked?: "binary" | "markers") =>
    resolveConflict({ policy, base, local, remote, remoteLabel: label, ...(localBlocked ? { localBlocked } : {}) });

  it("merge, clean: writes the merge locally and pushes it", () => {
    expect(resolve("merge", "A\nb\nc\n", "a\nb\nC\n")).toEqual({
      write: "A\nb\nC\n",
      push: "A\nb\nC\n",
      saveToConflicts: {},
      unresolved: false,
    });
  });

  it("merge, overlap: writes markers, pushes nothing, saves both sides and the base", () => {
    const result = resolve("merge", "a\nL\nc\n", "a\nR\nc\n");
    expect(result.push).toBeUndefined();
    expect(result.unresolved).toBe(true);
    expect(hasConflictMarkers(result.write ?? "")).toBe(true);
    expect(result.saveToConflicts).toEqual({ local: "a\nL\nc\n", remote: "a\nR\nc\n", base });
  });

  it("merge, overlap without a base: saves both sides only", () => {
    const result = resolveConflict({ policy: "merge", base: undefined, local: "l\n", remote: "r\n", remoteLabel: label });
    expect(result.saveToConflicts).toEqual({ local: "l\n", remote: "r\n" });
  });

  it("keep-local: pushes local, saves the remote copy", () => {
    expect(resolve("keep-local", "L\n", "R\n")).toEqual({ write: undefined, push: "L\n", saveToConflicts: { remote: "R\n" }, unresolved: false });
  });

  it("keep-remote: saves the local copy, writes remote", () => {
    expect(resolve("keep-remote", "L\n", "R\n")).toEqual({ write: "R\n", push: undefined, saveToConflicts: { local: "L\n" }, unresolved: false });
  });

  it("a binary local is never pushed: keep-remote replaces it (after the executor's backup)", () => {
    expect(resolve("keep-remote", undefined, "R\n", "binary")).toEqual({ write: "R\n", push: undefined, saveToConflicts: {}, unresolved: false });
    expect(resolve("keep-local", undefined, "R\n", "binary")).toEqual({
      write: undefined,
      push: undefined,
      saveToConflicts: { remote: "R\n" },
      unresolved: false,
    });
    expect(resolve("merge", undefined, "R\n", "binary")).toEqual({ write: undefined, push: undefined, saveToConflicts: { remote: "R\n" }, unresolved: true });
  });

  it("a local text still holding markers is treated as blocked even when the caller did not say so", () => {
    const marked = "<<<<<<< local\nL\n||||||| base\nb\n=======\nR\n>>>>>>> remote v6\n";
    expect(resolve("merge", marked, "R2\n")).toEqual({ write: undefined, push: undefined, saveToConflicts: { remote: "R2\n" }, unresolved: true });
    expect(resolve("keep-local", marked, "R2\n").push).toBeUndefined();
  });

  it.each<ConflictPolicy>(["merge", "keep-local", "keep-remote"])("a file with markers is kept as is and the new remote saved (%s)", (policy) => {
    expect(resolve(policy, "<<<<<<< local\n", "R\n", "markers")).toEqual({
      write: undefined,
      push: undefined,
      saveToConflicts: { remote: "R\n" },
      unresolved: true,
    });
  });
});
