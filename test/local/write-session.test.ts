/** A cycle's writes: folders asked once, files made durable together (one flush, not one per file). */
import { mkdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { replaceIfUnchanged } from "../../src/local/local-fs.js";
import { UnsafeLocalPathError } from "../../src/local/safe-path.js";
import { flushWrites, newWriteSession, SYNCFS_MIN_FILES } from "../../src/local/write-session.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();
let root: string;
beforeEach(async () => {
  root = await tempDir();
});

describe("write sessions", () => {
  it("new files land whole; the flush names its method and forgets the writes", async () => {
    const session = newWriteSession();
    for (let i = 0; i < SYNCFS_MIN_FILES; i++) expect(await replaceIfUnchanged(root, `d${i % 3}/f${i}.ts`, undefined, `f${i}\n`, { session })).toBe("written");
    expect(session.written.length).toBe(SYNCFS_MIN_FILES);
    expect(await readFile(join(root, "d1/f4.ts"), "utf8")).toBe("f4\n");
    expect(await flushWrites(session, { syncfs: false })).toBe("fsync");
    expect(session.written).toEqual([]);
    expect(await flushWrites(session)).toBe("none");
  });

  it.runIf(process.platform === "linux")("many files are flushed with one syncfs", async () => {
    const session = newWriteSession();
    for (let i = 0; i < SYNCFS_MIN_FILES; i++) await replaceIfUnchanged(root, `f${i}.ts`, undefined, "x\n", { session });
    expect(await flushWrites(session)).toBe("syncfs");
  });

  it("a name held by a file, a folder or a symlink is never overwritten", async () => {
    const session = newWriteSession();
    expect(await replaceIfUnchanged(root, "a.ts", undefined, "first\n", { session })).toBe("written");
    expect(await replaceIfUnchanged(root, "a.ts", undefined, "second\n", { session })).toBe("changed-meanwhile");
    expect(await readFile(join(root, "a.ts"), "utf8")).toBe("first\n");
    await mkdir(join(root, "folder.ts"));
    await expect(replaceIfUnchanged(root, "folder.ts", undefined, "x\n", { session })).rejects.toBeInstanceOf(UnsafeLocalPathError);
    await symlink("a.ts", join(root, "link.ts"));
    await expect(replaceIfUnchanged(root, "link.ts", undefined, "x\n", { session })).rejects.toBeInstanceOf(UnsafeLocalPathError);
  });

  it("never writes through a symlinked folder, even one first seen in the session", async () => {
    const outside = await tempDir();
    await symlink(outside, join(root, "linked"));
    const session = newWriteSession();
    await expect(replaceIfUnchanged(root, "linked/x.ts", undefined, "x\n", { session })).rejects.toBeInstanceOf(UnsafeLocalPathError);
    await expect(readFile(join(outside, "x.ts"), "utf8")).rejects.toThrow();
  });
});
