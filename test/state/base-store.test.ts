/** Base texts as loose files and packs: one pull writes one pack, read back by hash. */
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { hashContent } from "../../src/core/hash.js";
import { BaseTextStore } from "../../src/state/base-store.js";
import { useTempDirs } from "../support/temp-dir.js";

let dir: string;
const open = (): BaseTextStore => new BaseTextStore(dir, () => Promise.resolve());
const texts = (n: number, tag = "v"): string[] => Array.from({ length: n }, (_, i) => `export const x${i} = "${tag}";\n`);

const tempDir = useTempDirs();
beforeEach(async () => {
  dir = join(await tempDir(), "base");
});

describe("BaseTextStore", () => {
  it("stores a pull's texts as one pack (two files), each read back by its hash, also by a new reader", async () => {
    const all = texts(50);
    const hashes = await open().putBases(all);
    expect(hashes).toEqual(all.map((t) => hashContent(t)));
    expect((await readdir(dir)).length).toBe(2);
    const reader = open();
    for (const [i, h] of hashes.entries()) expect(await reader.getBase(h)).toBe(all[i]);
  });

  it("multi-byte texts (accents, CJK, emoji, a lone surrogate's replacement) land at the right offsets", async () => {
    const all = ["caf\u00e9 = 1;\n", "\u65e5\u672c\u8a9e\n", "emoji \u{1f600}\n", "", "plain\n", "\ufffd end\n"];
    const hashes = await open().putBases(all);
    const reader = open();
    for (const [i, h] of hashes.entries()) expect(await reader.getBase(h)).toBe(all[i]);
  });

  it("a pack larger than its write chunk: texts across chunk edges, one larger than a chunk, multi-byte at an edge", async () => {
    // 256 KiB chunks: the second text crosses the first edge, the third (300 KB) is larger
    // than a chunk, and a multi-byte text follows one that leaves a chunk almost full.
    const all = ["a".repeat(200_000), "b".repeat(100_000), "c".repeat(300_000), "d".repeat(262_000), "\u00e9\u{1f600}".repeat(2_000), "end\n"];
    const hashes = await open().putBases(all);
    const reader = open();
    for (const [i, h] of hashes.entries()) expect(await reader.getBase(h)).toBe(all[i]);
  });

  it("a text held already is not written again; a single new text is a loose file", async () => {
    const store = open();
    await store.putBases(texts(3));
    await store.putBases([...texts(3), "only new\n"]);
    const names = await readdir(dir);
    expect(names.filter((n) => n.startsWith("pack-")).length).toBe(2);
    expect(names).toContain(hashContent("only new\n"));
  });

  it("a damaged pack answers undefined (a conflict later), never a wrong text", async () => {
    const [h] = await open().putBases(texts(5));
    const pack = (await readdir(dir)).find((n) => n.startsWith("pack-") && !n.endsWith(".idx"))!;
    await writeFile(join(dir, pack), "garbage");
    expect(await open().getBase(h!)).toBeUndefined();
  });

  it("prune drops dead packs, rewrites mostly dead ones, and keeps every live text", async () => {
    const store = open();
    const a = await store.putBases(texts(10, "a"));
    const b = await store.putBases(texts(10, "b"));
    await store.pruneBases([...b.slice(0, 2)]);
    const after = open();
    for (const h of a) expect(await after.getBase(h)).toBeUndefined();
    for (const h of b.slice(0, 2)) expect(await after.getBase(h)).toBeDefined();
    for (const h of b.slice(2)) expect(await after.getBase(h)).toBeUndefined();
    // One pack left: the two live texts of b, repacked.
    expect((await readdir(dir)).filter((n) => n.startsWith("pack-")).length).toBe(2);
  });

  it("a pack left without its index (a killed write) is removed by the next prune, never by a reader", async () => {
    await open().putBases(texts(3));
    await writeFile(join(dir, "pack-orphan"), "half written");
    const reader = open();
    await reader.getBase("0".repeat(64));
    expect(await readdir(dir)).toContain("pack-orphan");
    await reader.pruneBases([]);
    expect(await readdir(dir)).not.toContain("pack-orphan");
  });
});
