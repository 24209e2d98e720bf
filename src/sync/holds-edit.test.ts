import { describe, expect, it } from "vitest";
import { holdsEdit } from "./holds-edit.js";

const BEFORE = ["a", "b", "c", "d", "e"].join("\n") + "\n";
const SENT = ["a", "b", "MY EDIT", "d", "e"].join("\n") + "\n";

describe("holdsEdit (a version built on a pushed edit, or one that dropped it)", () => {
  it.each([
    ["the text as sent", SENT, true],
    ["a version that also changed another line, far away", ["a", "b", "MY EDIT", "d", "E2"].join("\n") + "\n", true],
    // diff3 sees overlapping hunks here; the edit's line is still there, so it is held.
    ["a version that rewrote the line next to the edit", ["a", "b", "MY EDIT", "D2", "e"].join("\n") + "\n", true],
    ["a version that added lines around the edit", ["a", "b", "x", "MY EDIT", "y", "d", "e"].join("\n") + "\n", true],
    ["the old text: the edit is gone", BEFORE, false],
    ["a version built on the old text, another line changed", ["a", "b", "c", "d", "E2"].join("\n") + "\n", false],
    ["a version that replaced the edited line", ["a", "b", "THEIRS", "d", "e"].join("\n") + "\n", false],
  ])("%s: %s", (_name, now, expected) => {
    expect(holdsEdit(BEFORE, SENT, now)).toBe(expected);
  });

  it("a new file (nothing before): held while most of its lines are there", () => {
    expect(holdsEdit("", "x\ny\n", "x\ny\nz\n")).toBe(true);
    expect(holdsEdit("", "x\ny\n", "")).toBe(false);
    // A later edit of one line of a file we created (a daemon soak found this taken for a race).
    expect(holdsEdit("", "a1\nb1\nc1\nd1\n", "a1\nb1\nWEB\nd1\n")).toBe(true);
    // Another writer created the same name: a text of its own, a shared brace at most.
    expect(holdsEdit("", "mine1\nmine2\nmine3\n}\n", "theirs1\ntheirs2\n}\n")).toBe(false);
  });

  it("an edit that removed a line: held while the line stays away", () => {
    const removed = ["a", "b", "d", "e"].join("\n") + "\n";
    expect(holdsEdit(BEFORE, removed, ["a", "b", "d", "E2"].join("\n") + "\n")).toBe(true);
    expect(holdsEdit(BEFORE, removed, BEFORE)).toBe(false);
  });
});
