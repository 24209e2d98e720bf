import { describe, expect, it } from "vitest";
import { quoteLine } from "./quote-line.js";

describe("quoteLine", () => {
  it.each([
    [`  <div className="hero">`, `"<div className="hero">"`],
    [String.raw`const re = /\d+/;`, String.raw`"const re = /\d+/;"`],
    ["a\tb\u001b[31m", String.raw`"a\tb\u001b[31m"`],
    ["x".repeat(70), `"${"x".repeat(57)}..."`],
  ])("%s", (line, quoted) => {
    expect(quoteLine(line)).toBe(quoted);
  });
});
