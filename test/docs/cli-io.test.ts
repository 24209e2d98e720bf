/**
 * Commands parse, call a use case in src/app/, and render (src/cli/README.md): a file of
 * src/cli/ reads and writes no files itself. The files listed still do and are on their way
 * out; a new file, or one moved off the list, fails here when it imports node:fs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const CLI = join(import.meta.dirname, "../../src/cli");
const STILL_READING_FILES = new Set(["commands/init.ts", "commands/resolve.ts", "commands/restore.ts", "program.ts"]);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [join(dir, e.name)] : [],
  );
}

describe("src/cli/", () => {
  it("imports no node:fs outside the files listed", () => {
    const offenders = files(CLI)
      .map((file) => relative(CLI, file).split("\\").join("/"))
      .filter((rel) => !STILL_READING_FILES.has(rel))
      .filter((rel) => /from "node:fs(\/promises)?"/.test(readFileSync(join(CLI, rel), "utf8")));
    expect(offenders).toEqual([]);
    expect(files(CLI).length).toBeGreaterThan(20);
  });
});
