/**
 * The error family's single points (src/core/README.md): one reader of a system error's code
 * (`errnoCode`, `isErrno`), one code of any thrown value (`errorCode`), and no error told apart
 * by its words. A new hand-written cast or regex over a message fails here, with its place.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");
const HOME = "core/errors.ts";

const files = (readdirSync(SRC, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts"))
  .map((f) => ({ name: relative(SRC, join(SRC, f)).split("\\").join("/"), text: readFileSync(join(SRC, f), "utf8") }));

const places = (pattern: RegExp): string[] =>
  files.flatMap((f) => f.text.split("\n").flatMap((line, i) => (pattern.test(line) ? [`${f.name}:${i + 1}`] : [])));

describe("the error family", () => {
  it("reads a system error's code in one place", () => {
    expect(places(/ErrnoException|as \{ ?code\?: unknown|"code" in /).filter((p) => !p.startsWith(`${HOME}:`))).toEqual([]);
  });

  it("has one errorCode", () => {
    expect(places(/function errorCode\b/)).toEqual([expect.stringMatching(new RegExp(`^${HOME}:`))]);
  });

  it("tells no error apart by a regular expression over its message", () => {
    expect(places(/\.test\((err|error|e)\.message\)|\.test\(message\)/)).toEqual([]);
  });
});
