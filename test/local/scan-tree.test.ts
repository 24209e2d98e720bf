import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIgnoreMatcher } from "../../src/local/ignore-rules.js";
import { mapBounded } from "../../src/local/bounded.js";
import { ScanCache } from "../../src/local/scan-cache.js";
import { readLocalFile, scanTree, type SkipReason } from "../../src/local/scan-tree.js";
import { UnsafeLocalPathError } from "../../src/local/safe-path.js";
import { hashContent } from "../../src/core/hash.js";
import { makeTempDir } from "../support/temp-dir.js";

const matcher = createIgnoreMatcher({ patterns: ["dist/"] });
/** A clock far enough ahead that every file just written counts as settled (not racy). */
const settled = (): number => Date.now() + 60_000;

let root: string;
let outside: string;
let cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  const a = await makeTempDir("scan");
  const b = await makeTempDir("scan-outside");
  root = a.dir;
  outside = b.dir;
  cleanups = [a.cleanup, b.cleanup];
});
afterEach(async () => {
  for (const c of cleanups) await c();
});

async function put(rel: string, content: string | Uint8Array): Promise<void> {
  await mkdir(join(root, rel, ".."), { recursive: true });
  await writeFile(join(root, rel), content);
}

describe("scanTree", () => {
  it("lists files with relative / paths, hashes and flags, sorted", async () => {
    await put("App.tsx", "export const App = 1;\n");
    await put("components/ui/Button.tsx", "button");
    await put("logo.png", new Uint8Array([0x89, 0x50, 0x00, 0xff]));
    await put("merge.tsx", "<<<<<<< local\na\n=======\nb\n>>>>>>> remote v3\n");
    const files = await scanTree(root, matcher);
    expect([...files.keys()]).toEqual(["App.tsx", "components/ui/Button.tsx", "logo.png", "merge.tsx"]);
    expect(files.get("App.tsx")).toMatchObject({ hash: hashContent("export const App = 1;\n"), binary: false, hasMarkers: false, size: 22 });
    expect(files.get("App.tsx")?.text).toBeUndefined();
    expect(files.get("logo.png")).toMatchObject({ binary: true, hasMarkers: false });
    expect(files.get("merge.tsx")).toMatchObject({ binary: false, hasMarkers: true });
  });

  it("returns text only when asked", async () => {
    await put("a.ts", "alpha");
    await put("b.bin", new Uint8Array([0, 1, 2]));
    const files = await scanTree(root, matcher, undefined, { withText: true });
    expect(files.get("a.ts")?.text).toBe("alpha");
    expect(files.get("b.bin")?.text).toBeUndefined();
  });

  it("skips ignored files and never descends into ignored folders", async () => {
    await put("App.tsx", "x");
    await put(".App.tsx.swp", "swap");
    await put("node_modules/react/index.js", "r");
    await put(".git/HEAD", "ref");
    await put(".mpsync/state.json", "{}");
    await put("dist/bundle.js", "b");
    // A symlink inside an ignored folder would be reported if the walk entered it.
    await symlink(outside, join(root, "node_modules", "link"));
    const skipped: string[] = [];
    const read: string[] = [];
    const files = await scanTree(root, matcher, undefined, { onSkip: (rel) => skipped.push(rel), onRead: (rel) => read.push(rel) });
    expect([...files.keys()]).toEqual(["App.tsx"]);
    expect(read).toEqual(["App.tsx"]);
    expect(skipped).toEqual([]);
  });

  it("does not follow symlinks and reports them", async () => {
    await writeFile(join(outside, "secret.txt"), "outside");
    await mkdir(join(outside, "sub"));
    await writeFile(join(outside, "sub", "deep.txt"), "deep");
    await put("App.tsx", "x");
    await symlink(join(outside, "secret.txt"), join(root, "linked.txt"));
    await symlink(join(outside, "sub"), join(root, "linkdir"));
    const skipped: [string, SkipReason][] = [];
    const files = await scanTree(root, matcher, undefined, { onSkip: (rel, why) => skipped.push([rel, why]) });
    expect([...files.keys()]).toEqual(["App.tsx"]);
    expect(skipped.sort()).toEqual([
      ["linkdir", "symlink"],
      ["linked.txt", "symlink"],
    ]);
  });

  it("rejects when the root is missing", async () => {
    await expect(scanTree(join(root, "nope"), matcher)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("scanTree with a ScanCache", () => {
  it("does not read unchanged files, re-reads changed ones and drops vanished ones", async () => {
    await put("a.ts", "a");
    await put("b.ts", "b");
    await put("c.ts", "c");
    const cache = new ScanCache();
    const first: string[] = [];
    await scanTree(root, matcher, cache, { onRead: (r) => first.push(r), now: settled });
    expect(first.sort()).toEqual(["a.ts", "b.ts", "c.ts"]);

    await put("b.ts", "bb");
    await rm(join(root, "c.ts"));
    const second: string[] = [];
    const files = await scanTree(root, matcher, cache, { onRead: (r) => second.push(r), now: settled });
    expect(second).toEqual(["b.ts"]);
    expect(files.get("a.ts")?.hash).toBe(hashContent("a"));
    expect(files.get("b.ts")?.hash).toBe(hashContent("bb"));
    expect(Object.keys(cache.toJSON()).sort()).toEqual(["a.ts", "b.ts"]);
  });

  it("survives serialisation (the state store persists it)", async () => {
    await put("a.ts", "a");
    const cache = new ScanCache();
    await scanTree(root, matcher, cache, { now: settled });
    const restored = new ScanCache(JSON.parse(JSON.stringify(cache)));
    const read: string[] = [];
    const files = await scanTree(root, matcher, restored, { onRead: (r) => read.push(r), now: settled });
    expect(read).toEqual([]);
    expect(files.get("a.ts")?.hash).toBe(hashContent("a"));
  });

  it("does not trust a read taken right after the file was modified (racy clean)", async () => {
    await put("a.ts", "a");
    const cache = new ScanCache();
    await scanTree(root, matcher, cache);
    const read: string[] = [];
    await scanTree(root, matcher, cache, { onRead: (r) => read.push(r) });
    expect(read).toEqual(["a.ts"]);
  });

  it("re-reads everything when text is requested", async () => {
    await put("a.ts", "a");
    const cache = new ScanCache();
    await scanTree(root, matcher, cache, { now: settled });
    const files = await scanTree(root, matcher, cache, { withText: true, now: settled });
    expect(files.get("a.ts")?.text).toBe("a");
  });

  // Speed itself is measured by `npm run bench`; here: an unchanged tree is not read at all.
  it("re-scans 10,000 unchanged files without reading any of them", async () => {
    const dirs = Array.from({ length: 100 }, (_, i) => `dir${i}`);
    await Promise.all(dirs.map((d) => mkdir(join(root, d))));
    const rels = dirs.flatMap((d) => Array.from({ length: 100 }, (_, j) => `${d}/f${j}.ts`));
    await mapBounded(rels, 64, (rel) => writeFile(join(root, rel), `export const v = "${rel}";\n`));
    const cache = new ScanCache();
    await scanTree(root, matcher, cache, { now: settled });
    let reads = 0;
    const files = await scanTree(root, matcher, cache, { onRead: () => reads++, now: settled });
    expect(files.size).toBe(10_000);
    expect(reads).toBe(0);
  }, 60_000);
});

describe("readLocalFile", () => {
  it("reads bytes, hash, flags and text", async () => {
    await put("src/a.ts", "hello");
    const f = await readLocalFile(root, "src/a.ts");
    expect(f).toMatchObject({ hash: hashContent("hello"), binary: false, hasMarkers: false, text: "hello" });
    expect(Buffer.from(f?.bytes ?? []).toString()).toBe("hello");
  });

  it("is undefined for an absent file, a folder, or a path under a file", async () => {
    await put("a.ts", "a");
    await mkdir(join(root, "folder"));
    expect(await readLocalFile(root, "missing.ts")).toBeUndefined();
    expect(await readLocalFile(root, "folder")).toBeUndefined();
    expect(await readLocalFile(root, "a.ts/b.ts")).toBeUndefined();
  });

  it("refuses a symlink, a symlinked parent, and escapes", async () => {
    await writeFile(join(outside, "secret.txt"), "outside");
    await symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    await symlink(outside, join(root, "linkdir"));
    await expect(readLocalFile(root, "link.txt")).rejects.toBeInstanceOf(UnsafeLocalPathError);
    await expect(readLocalFile(root, "linkdir/secret.txt")).rejects.toMatchObject({ reason: "symlink" });
    await expect(readLocalFile(root, "../x")).rejects.toMatchObject({ reason: "invalid" });
    await expect(readLocalFile(root, "/etc/passwd")).rejects.toMatchObject({ reason: "invalid" });
  });
});
