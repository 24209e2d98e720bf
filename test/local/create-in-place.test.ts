/**
 * A cycle's small new files are created under their own names (create-in-place.ts), marked
 * incomplete (mode 000) until their content is whole; what a kill leaves so is removed by the
 * next start that holds the lock, and nothing else is.
 */
import { watch } from "node:fs";
import { chmod, lstat, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { INLINE_WRITE_MAX_BYTES } from "../../src/local/atomic-write.js";
import { CREATE_IN_PLACE_SUPPORTED, defaultFileMode, INCOMPLETE_MODE, removeIncompleteFiles } from "../../src/local/create-in-place.js";
import { replaceIfUnchanged } from "../../src/local/local-fs.js";
import { newWriteSession } from "../../src/local/write-session.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();
let root: string;
beforeEach(async () => {
  root = await tempDir();
});

/** Every name that appears in `root` while `work` runs (inotify, in order; a sentinel ends it). */
async function namesSeenDuring(work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const sentinel = "zz-sentinel";
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  const watcher = watch(root, (_type, name) => {
    if (name === null) return;
    if (name === sentinel) done();
    else seen.push(name);
  });
  try {
    await work();
    // Events come in order: once the sentinel's arrives, every earlier one has.
    await writeFile(join(root, sentinel), "");
    await ended;
  } finally {
    watcher.close();
  }
  return seen;
}

describe.runIf(CREATE_IN_PLACE_SUPPORTED)("new files of a write session", () => {
  it("a small one is created under its own name, never a temp name, with the default mode", async () => {
    const session = newWriteSession();
    const seen = await namesSeenDuring(async () => {
      expect(await replaceIfUnchanged(root, "a.ts", undefined, "a\n", { session })).toBe("written");
      expect(await replaceIfUnchanged(root, "b.ts", undefined, "b\n", { session })).toBe("written");
    });
    expect(new Set(seen)).toEqual(new Set(["a.ts", "b.ts"]));
    expect(await readFile(join(root, "b.ts"), "utf8")).toBe("b\n");
    expect((await lstat(join(root, "a.ts"))).mode & 0o7777).toBe(defaultFileMode());
    expect(session.written).toEqual([join(root, "a.ts"), join(root, "b.ts")]);
  });

  it("a large one still goes through a temp file (the check a name-only watch could miss)", async () => {
    const big = "x".repeat(INLINE_WRITE_MAX_BYTES);
    const seen = await namesSeenDuring(async () => {
      expect(await replaceIfUnchanged(root, "big.ts", undefined, big, { session: newWriteSession() })).toBe("written");
    });
    expect(seen.some((n) => n.endsWith(".mpsync.tmp"))).toBe(true);
    expect(await readFile(join(root, "big.ts"), "utf8")).toBe(big);
  });

  it("a name already taken keeps its file", async () => {
    await writeFile(join(root, "mine.ts"), "the user's\n");
    expect(await replaceIfUnchanged(root, "mine.ts", undefined, "remote\n", { session: newWriteSession() })).toBe("changed-meanwhile");
    expect(await readFile(join(root, "mine.ts"), "utf8")).toBe("the user's\n");
  });
});

describe("removeIncompleteFiles", () => {
  it("removes only the listed regular files with mode 000, never through a symlink", async () => {
    const outside = await tempDir();
    await writeFile(join(root, "torn.ts"), "half of a pul");
    await chmod(join(root, "torn.ts"), INCOMPLETE_MODE);
    await writeFile(join(root, "whole.ts"), "the user's\n");
    await writeFile(join(root, "unlisted.ts"), "000 but not journalled");
    await chmod(join(root, "unlisted.ts"), INCOMPLETE_MODE);
    await writeFile(join(outside, "target.ts"), "outside");
    await chmod(join(outside, "target.ts"), INCOMPLETE_MODE);
    await symlink(join(outside, "target.ts"), join(root, "link.ts"));
    const removed = await removeIncompleteFiles(root, ["torn.ts", "whole.ts", "link.ts", "absent.ts", "../escape.ts"]);
    expect(removed).toEqual(["torn.ts"]);
    expect((await readdir(root)).sort()).toEqual(["link.ts", "unlisted.ts", "whole.ts"]);
    expect(await readFile(join(outside, "target.ts"), "utf8")).toBe("outside");
  });
});
