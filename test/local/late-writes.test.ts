/**
 * late-writes.ts on a real folder: a write through a descriptor opened before a replace lands
 * in the old file; the watch finds it and puts the writer's text back under the name (ours
 * backed up) or, when the name changed again, in a conflict copy. An injected monotonic clock
 * and explicit looks: no timers, no sleeps.
 */
import { open, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashContent } from "../../src/core/hash.js";
import { LateWriteWatch, waitUntilQuiet, type LateWrite } from "../../src/local/late-writes.js";
import { replaceIfUnchanged } from "../../src/local/local-fs.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();

/** A folder with App.tsx held open by a writer that truncated it, and a watch on a fake clock. */
async function setup(): Promise<{
  root: string;
  fd: Awaited<ReturnType<typeof open>>;
  watch: LateWriteWatch;
  said: LateWrite[];
  copies: string[];
  tick(ms: number): void;
}> {
  const root = await tempDir();
  await writeFile(join(root, "App.tsx"), "base\n");
  const fd = await open(join(root, "App.tsx"), "w"); // the truncate: an empty local edit
  let now = 0;
  const said: LateWrite[] = [];
  const copies: string[] = [];
  const watch = new LateWriteWatch({
    now: () => now,
    backup: () => Promise.resolve(".mpsync/backups/x/App.tsx"),
    conflictCopy: (_rel, text) => (copies.push(text.toString("utf8")), Promise.resolve(".mpsync/conflicts/x/App.tsx.local")),
    onLateWrite: (w) => said.push(w),
    lookMs: 3_600_000,
  });
  return { root, fd, watch, said, copies, tick: (ms) => (now += ms) };
}

const guard = (watch: LateWriteWatch) => ({ quiet: () => Promise.resolve(), late: watch });

describe("LateWriteWatch", () => {
  it("a write through the writer's descriptor after the replace goes back under the name, said", async () => {
    const { root, fd, watch, said, tick } = await setup();
    expect(await replaceIfUnchanged(root, "App.tsx", hashContent(""), "<<<<<<< local\n", { localEdit: guard(watch) })).toBe("written");
    expect(watch.size).toBe(1);
    await fd.write("the generated text\n");
    await fd.close();
    await watch.look(); // sees the change
    tick(2_000);
    await watch.look(); // quiet since: recovered
    expect(await readFile(join(root, "App.tsx"), "utf8")).toBe("the generated text\n");
    expect(said).toEqual([{ rel: "App.tsx", outcome: "restored", kept: ".mpsync/backups/x/App.tsx" }]);
    expect(watch.size).toBe(0);
    expect((await readdir(root)).filter((n) => n.endsWith(".mpsync.tmp"))).toEqual([]);
  });

  it("when the name changed again since, the writer's text goes to a conflict copy and the new save stays", async () => {
    const { root, fd, watch, said, copies, tick } = await setup();
    await replaceIfUnchanged(root, "App.tsx", hashContent(""), "merged\n", { localEdit: guard(watch) });
    await writeFile(join(root, "App.tsx"), "a newer save\n");
    await fd.write("late\n");
    await fd.close();
    await watch.look();
    tick(2_000);
    await watch.look();
    expect(await readFile(join(root, "App.tsx"), "utf8")).toBe("a newer save\n");
    expect(copies).toEqual(["late\n"]);
    expect(said.map((w) => w.outcome)).toEqual(["copied"]);
  });

  it("no write within the hold: the held file goes, nothing is said", async () => {
    const { root, fd, watch, said, tick } = await setup();
    await replaceIfUnchanged(root, "App.tsx", hashContent(""), "merged\n", { localEdit: guard(watch) });
    await fd.close();
    tick(60_000);
    await watch.look();
    expect(said).toEqual([]);
    expect(watch.size).toBe(0);
    expect(await readdir(root)).toEqual(["App.tsx"]);
  });
});

describe("waitUntilQuiet", () => {
  it("waits while the file keeps changing, and until it stayed unchanged for the quiet time", async () => {
    const root = await tempDir();
    const file = join(root, "App.tsx");
    await writeFile(file, "");
    let now = 0;
    const looks: number[] = [];
    await waitUntilQuiet(file, {
      now: () => now,
      quietMs: 1000,
      lookMs: 100,
      sleep: async (ms) => {
        now += ms;
        looks.push(now);
        // The writer appends for the first half second.
        if (now <= 500) await writeFile(file, "x".repeat(now / 100));
      },
    });
    // Quiet from the last change (500) for 1000 more.
    expect(looks.at(-1)).toBe(1500);
  });

  it("gives up after the longest wait: the compare-and-swap still guards the replace", async () => {
    const root = await tempDir();
    const file = join(root, "App.tsx");
    await writeFile(file, "");
    let now = 0;
    let n = 0;
    await waitUntilQuiet(file, { now: () => now, maxMs: 3000, sleep: async (ms) => ((now += ms), await writeFile(file, "x".repeat(++n))) });
    expect(now).toBe(3000);
  });
});
