/** A cycle's writes: folders asked once, files made durable together (one flush, not one per file). */
import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { removeIfUnchanged, replaceIfUnchanged } from "../../src/local/local-fs.js";
import { hashContent } from "../../src/core/hash.js";
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

  it("a removal joins the flush: the folder that held it is fsynced (the nearest one left when its folders emptied)", async () => {
    await mkdir(join(root, "a/b"), { recursive: true });
    await writeFile(join(root, "a/b/only.ts"), "only\n");
    await writeFile(join(root, "a/keep.ts"), "keep\n");
    await writeFile(join(root, "top.ts"), "top\n");
    await writeFile(join(root, "kept.ts"), "mine\n");
    const session = newWriteSession();
    expect(await removeIfUnchanged(root, "a/b/only.ts", hashContent("only\n"), { session })).toBe("removed");
    expect(await removeIfUnchanged(root, "top.ts", hashContent("top\n"), { session })).toBe("removed");
    expect(await removeIfUnchanged(root, "kept.ts", hashContent("other\n"), { session })).toBe("changed-meanwhile");
    await expect(stat(join(root, "a/b"))).rejects.toMatchObject({ code: "ENOENT" });
    const synced: string[] = [];
    const fsync = (path: string): Promise<void> => (synced.push(path), Promise.resolve());
    // No file written: the removals alone still make a flush.
    expect(await flushWrites(session, { syncfs: false, fsync })).toBe("fsync");
    expect(synced.sort()).toEqual([root, join(root, "a")].sort());
    expect(await flushWrites(session, { syncfs: false, fsync })).toBe("none");
  });
});
