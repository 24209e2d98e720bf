/** `--log-file PATH` writes exactly PATH, rotated beside it as PATH.1, PATH.2, never a name of its own. */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rotatingFileDestination } from "../../src/log/rotating-file.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();

describe("rotatingFileDestination", () => {
  it("writes the given path; past the limit it is moved to .1, .2 and only `keep` old files stay", async () => {
    const dir = await tempDir();
    const file = join(dir, "nested", "mpsync.log");
    const dest = rotatingFileDestination(file, { maxBytes: 100, keep: 2 });
    for (let i = 0; i < 10; i++) dest.write(`${JSON.stringify({ n: i, pad: "x".repeat(40) })}\n`);
    dest.write('{"last":true}\n');
    dest.flushSync();
    expect((await readdir(join(dir, "nested"))).sort()).toEqual(["mpsync.log", "mpsync.log.1", "mpsync.log.2"]);
    expect(await readFile(file, "utf8")).toContain('"last":true');
    // Every kept line is whole JSON.
    for (const name of ["mpsync.log", "mpsync.log.1", "mpsync.log.2"]) {
      for (const line of (await readFile(join(dir, "nested", name), "utf8")).trim().split("\n")) expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
  });
});
