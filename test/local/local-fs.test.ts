import { chmod, mkdir, open, readdir, readFile, rename, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INLINE_WRITE_MAX_BYTES, removeHeld, writeFileAtomicallyGuarded } from "../../src/local/atomic-write.js";
import { backupLocalFile, removeIfUnchanged, removeLocalFile, replaceIfUnchanged, writeLocalFile } from "../../src/local/local-fs.js";
import { UnsafeLocalPathError } from "../../src/local/safe-path.js";
import { hashContent } from "../../src/core/hash.js";
import { makeTempDir } from "../support/temp-dir.js";
import { newWriteSession } from "../../src/local/write-session.js";

let root: string;
let outside: string;
let cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  const a = await makeTempDir("localfs");
  const b = await makeTempDir("localfs-outside");
  root = a.dir;
  outside = b.dir;
  cleanups = [a.cleanup, b.cleanup];
});
afterEach(async () => {
  for (const c of cleanups) await c();
});

const read = (rel: string): Promise<string> => readFile(join(root, rel), "utf8");

describe("writeLocalFile", () => {
  it("creates parents, writes the content and leaves no temp file", async () => {
    await writeLocalFile(root, "components/ui/Button.tsx", "button");
    expect(await read("components/ui/Button.tsx")).toBe("button");
    expect(await readdir(join(root, "components/ui"))).toEqual(["Button.tsx"]);
  });

  it("keeps the mode of the file it replaces", async () => {
    await writeFile(join(root, "run.sh"), "old");
    await chmod(join(root, "run.sh"), 0o750);
    await writeLocalFile(root, "run.sh", "new");
    expect((await stat(join(root, "run.sh"))).mode & 0o777).toBe(0o750);
  });

  it("refuses a symlinked file, a symlinked parent and escapes; the target is untouched", async () => {
    await writeFile(join(outside, "secret.txt"), "outside");
    await symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    await symlink(outside, join(root, "linkdir"));
    await expect(writeLocalFile(root, "link.txt", "x")).rejects.toMatchObject({ reason: "symlink" });
    await expect(writeLocalFile(root, "linkdir/secret.txt", "x")).rejects.toMatchObject({ reason: "symlink" });
    await expect(writeLocalFile(root, "linkdir/new.txt", "x")).rejects.toBeInstanceOf(UnsafeLocalPathError);
    await expect(writeLocalFile(root, "../escape.txt", "x")).rejects.toMatchObject({ reason: "invalid" });
    await expect(writeLocalFile(root, "a/../../escape.txt", "x")).rejects.toMatchObject({ reason: "invalid" });
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("outside");
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });

  it("refuses to replace a folder", async () => {
    await mkdir(join(root, "dir"));
    await expect(writeLocalFile(root, "dir", "x")).rejects.toMatchObject({ reason: "not-a-file" });
  });
});

describe("writeFileAtomicallyGuarded", () => {
  it("abandons the write when the late check fails, leaving no temp file", async () => {
    const file = join(root, "a.ts");
    await writeFile(file, "old");
    const wrote = await writeFileAtomicallyGuarded(file, "new", {
      beforeRename: async () => {
        // An editor saves while the new content is being written.
        await writeFile(file, "edited");
        return false;
      },
    });
    expect(wrote).toBe(false);
    expect(await readFile(file, "utf8")).toBe("edited");
    expect(await readdir(root)).toEqual(["a.ts"]);
  });

  // Small contents without fsync take the inline path (system calls on this thread), the rest
  // libuv's thread pool: both must behave alike.
  describe.each([
    ["inline (small, no fsync)", "x".repeat(100), false],
    ["thread pool (over INLINE_WRITE_MAX_BYTES)", "y".repeat(INLINE_WRITE_MAX_BYTES + 1), false],
    ["thread pool (fsync)", "z".repeat(100), true],
  ] as const)("%s", (_, text, fsync) => {
    it("replaces a file keeping its mode; create-only refuses a name that exists; no temp file is left", async () => {
      const file = join(root, "run.sh");
      await writeFile(file, "old");
      await chmod(file, 0o750);
      expect(await writeFileAtomicallyGuarded(file, text, { fsync })).toBe(true);
      expect(await readFile(file, "utf8")).toBe(text);
      expect((await stat(file)).mode & 0o777).toBe(0o750);
      expect(await writeFileAtomicallyGuarded(file, "other", { fsync, createOnly: true })).toBe(false);
      expect(await readFile(file, "utf8")).toBe(text);
      expect(await writeFileAtomicallyGuarded(join(root, "new.ts"), text, { fsync, createOnly: true })).toBe(true);
      expect(await readFile(join(root, "new.ts"), "utf8")).toBe(text);
      expect((await readdir(root)).sort()).toEqual(["new.ts", "run.sh"]);
    });
  });
});

// A user's save that lands after the content check and before the rename (or unlink) must
// not be overwritten unseen. The check runs against a second name of the file; a save in place
// goes into that file and is put back, a save by rename makes a new file, which is kept.
describe("a save landing inside the check-then-replace window", () => {
  const userSaves = {
    "in place (truncate and write, as most editors)": (file: string, text: string) => writeFile(file, text),
    "by rename (safe write)": async (file: string, text: string) => {
      await writeFile(`${file}.swp`, text);
      await rename(`${file}.swp`, file);
    },
  };
  describe.each(Object.entries(userSaves))("%s", (_, save) => {
    it("after the check passed: the replace counts as refused and the save stays", async () => {
      const file = join(root, "a.ts");
      await writeFile(file, "base");
      const wrote = await writeFileAtomicallyGuarded(file, "remote", {
        replaceIf: async (held) => {
          const ok = (await readFile(held, "utf8")) === "base";
          if (ok && !saved) await save(file, "user save");
          saved = true;
          return ok;
        },
      });
      expect(wrote).toBe(false);
      expect(await readFile(file, "utf8")).toBe("user save");
      expect(await readdir(root)).toEqual(["a.ts"]);
    });

    it("a remove: the save makes a new file, which stays", async () => {
      const file = join(root, "a.ts");
      await writeFile(file, "base");
      const removed = await removeHeld(file, async (held) => {
        await save(file, "user save");
        return (await readFile(held, "utf8")) === "base";
      });
      expect(removed).toBe(true);
      expect(await readFile(file, "utf8")).toBe("user save");
      expect(await readdir(root)).toEqual(["a.ts"]);
    });
  });
  let saved = false;
  beforeEach(() => {
    saved = false;
  });

  it("a remove: a write through a descriptor opened before goes into the held file, which is put back", async () => {
    const file = join(root, "a.ts");
    await writeFile(file, "base");
    const editor = await open(file, "r+");
    try {
      const removed = await removeHeld(file, async (held) => {
        await editor.truncate(0);
        await editor.write("user save", 0);
        return (await readFile(held, "utf8")) === "base";
      });
      expect(removed).toBe(false);
    } finally {
      await editor.close();
    }
    expect(await readFile(file, "utf8")).toBe("user save");
    expect(await readdir(root)).toEqual(["a.ts"]);
  });

  it("with no save meanwhile, replaces and removes, leaving no held name behind", async () => {
    const file = join(root, "a.ts");
    await writeFile(file, "base");
    const check = async (held: string) => (await readFile(held, "utf8")) === "base";
    expect(await writeFileAtomicallyGuarded(file, "remote", { replaceIf: check })).toBe(true);
    expect(await readFile(file, "utf8")).toBe("remote");
    expect(await writeFileAtomicallyGuarded(file, "again", { replaceIf: check })).toBe(false);
    expect(await readFile(file, "utf8")).toBe("remote");
    await writeFile(file, "base");
    expect(await removeHeld(file, check)).toBe(true);
    expect(await readdir(root)).toEqual([]);
    expect(await removeHeld(file, check)).toBe(false);
  });
});

// A pull's write prepares (temp file) while its journal and backup are made, and publishes after them.
describe("a replace that waits for a journal before it publishes", () => {
  it("writes its temp file first and takes the name only once the journal is done", async () => {
    await writeFile(join(root, "a.ts"), "v1");
    const atGate: string[][] = [];
    // A thenable: awaited by the writer exactly when it reaches the gate.
    const journal = {
      then(resolve: () => void) {
        void Promise.all([readdir(root), read("a.ts")]).then(([names, text]) => {
          atGate.push([text, ...names.filter((n) => n.endsWith(".mpsync.tmp")).map(() => "temp")]);
          resolve();
        });
      },
    } as Promise<void>;
    expect(await replaceIfUnchanged(root, "a.ts", hashContent("v1"), "v2", { after: journal })).toBe("written");
    expect(atGate).toEqual([["v1", "temp"]]);
    expect(await read("a.ts")).toBe("v2");
  });

  it("a journal that failed: the write fails, the file stays, no temp file is left", async () => {
    await writeFile(join(root, "a.ts"), "v1");
    const failed = Promise.reject(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }));
    failed.catch(() => undefined);
    await expect(replaceIfUnchanged(root, "a.ts", hashContent("v1"), "v2", { after: failed })).rejects.toMatchObject({ code: "ENOSPC" });
    await expect(replaceIfUnchanged(root, "b.ts", undefined, "new", { after: failed })).rejects.toMatchObject({ code: "ENOSPC" });
    expect(await read("a.ts")).toBe("v1");
    expect(await readdir(root)).toEqual(["a.ts"]);
  });
});

describe("replaceIfUnchanged", () => {
  it("writes when the file still has the expected hash", async () => {
    await writeFile(join(root, "a.ts"), "v1");
    expect(await replaceIfUnchanged(root, "a.ts", hashContent("v1"), "v2")).toBe("written");
    expect(await read("a.ts")).toBe("v2");
  });

  it("refuses a file changed meanwhile", async () => {
    await writeFile(join(root, "a.ts"), "v1");
    const seen = hashContent("v1");
    await writeFile(join(root, "a.ts"), "user edit");
    expect(await replaceIfUnchanged(root, "a.ts", seen, "remote")).toBe("changed-meanwhile");
    expect(await read("a.ts")).toBe("user edit");
  });

  it("with no expected hash, writes only where nothing exists", async () => {
    expect(await replaceIfUnchanged(root, "new.ts", undefined, "n")).toBe("written");
    expect(await replaceIfUnchanged(root, "new.ts", undefined, "again")).toBe("changed-meanwhile");
    expect(await read("new.ts")).toBe("n");
  });

  it("refuses when an expected file was deleted meanwhile", async () => {
    expect(await replaceIfUnchanged(root, "gone.ts", hashContent("x"), "y")).toBe("changed-meanwhile");
    await expect(stat(join(root, "gone.ts"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("removeLocalFile / removeIfUnchanged", () => {
  it("removes the file and its now-empty parents, never the root", async () => {
    await writeLocalFile(root, "a/b/c.ts", "c");
    await writeLocalFile(root, "a/keep.ts", "k");
    expect(await removeLocalFile(root, "a/b/c.ts")).toBe(true);
    expect(await readdir(join(root, "a"))).toEqual(["keep.ts"]);
    expect(await removeLocalFile(root, "a/keep.ts")).toBe(true);
    expect(await readdir(root)).toEqual([]);
    expect(await removeLocalFile(root, "a/keep.ts")).toBe(false);
  });

  it("removes only an unchanged file", async () => {
    await writeFile(join(root, "a.ts"), "v1");
    expect(await removeIfUnchanged(root, "a.ts", hashContent("other"))).toBe("changed-meanwhile");
    expect(await read("a.ts")).toBe("v1");
    expect(await removeIfUnchanged(root, "a.ts", hashContent("v1"))).toBe("removed");
    expect(await readdir(root)).toEqual([]);
  });

  it("refuses a symlink", async () => {
    await writeFile(join(outside, "t.txt"), "t");
    await symlink(join(outside, "t.txt"), join(root, "l.txt"));
    await expect(removeLocalFile(root, "l.txt")).rejects.toMatchObject({ reason: "symlink" });
  });
});

describe("backupLocalFile", () => {
  // In a cycle's session the copy goes through the guarded writer (inline calls, link(2)).
  it.each([false, true])("copies the current content under <backups>/<stamp>/<rel> (in a session: %s)", async (inSession) => {
    const backups = join(root, ".mpsync", "backups");
    const options = inSession ? { session: newWriteSession() } : {};
    await writeLocalFile(root, "src/a.ts", "v1");
    const first = await backupLocalFile(root, "src/a.ts", backups, "2024-01-01T00-00-00-000Z", options);
    expect(first).toBe(join(backups, "2024-01-01T00-00-00-000Z", "src", "a.ts"));
    expect(await readFile(first ?? "", "utf8")).toBe("v1");
    // Same content again: the same copy. Other content in the same run: a numbered sibling.
    expect(await backupLocalFile(root, "src/a.ts", backups, "2024-01-01T00-00-00-000Z", options)).toBe(first);
    await writeLocalFile(root, "src/a.ts", "v2");
    const second = await backupLocalFile(root, "src/a.ts", backups, "2024-01-01T00-00-00-000Z", options);
    expect(second).toBe(`${first}.1`);
    expect(await readFile(second ?? "", "utf8")).toBe("v2");
    expect(await readFile(first ?? "", "utf8")).toBe("v1");
    expect(await readdir(join(backups, "2024-01-01T00-00-00-000Z", "src"))).toEqual(["a.ts", "a.ts.1"]);
    if (options.session !== undefined) expect(options.session.written).toEqual([first, second]);
  });

  it("backs up binary content byte for byte", async () => {
    const bytes = new Uint8Array([0, 255, 1, 254]);
    await writeFile(join(root, "img.png"), bytes);
    const copy = await backupLocalFile(root, "img.png", join(root, ".mpsync", "backups"), "s1");
    expect(new Uint8Array(await readFile(copy ?? ""))).toEqual(bytes);
  });

  it("is a no-op for an absent file and refuses a bad stamp", async () => {
    expect(await backupLocalFile(root, "none.ts", join(root, "b"), "s1")).toBeUndefined();
    await writeFile(join(root, "a.ts"), "a");
    await expect(backupLocalFile(root, "a.ts", join(root, "b"), "../x")).rejects.toMatchObject({ reason: "invalid" });
    await expect(backupLocalFile(root, "a.ts", join(root, "b"), "..")).rejects.toMatchObject({ reason: "invalid" });
  });
});
