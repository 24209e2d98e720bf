/**
 * What a `kill -9` mid-cycle leaves behind, planted directly so the checks are fast and
 * deterministic (scripts/soak.mjs finds both at scale with real kills):
 * - writeFileAtomicallyGuarded puts its temp file beside the target
 *   (`.<name>.<hex>.mpsync.tmp`); a kill between the write and the rename leaves it there;
 * - a kill after a pull wrote a file but before state.json recorded its base leaves the
 *   tool's own write looking like a local edit.
 */
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { summarizeCycle } from "../../src/sync/cycle-summary.js";
import { lines, startHarness, STARTER_FILES, type Harness } from "../integration/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("temp files of a killed write", () => {
  it("are never pushed", async () => {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    const sync = await h.runtime.openDesign(mapping!, h.emit);
    await sync.fullSync();
    await writeFile(join(h.root, "components", ".Button.tsx.0123456789ab.mpsync.tmp"), "half of a pulled file");
    expect(await sync.localChanges()).toEqual([]);
    expect(summarizeCycle(await sync.fullSync()).pushed).toEqual([]);
    expect(Object.keys(h.remoteFiles()).sort()).toEqual(Object.keys(STARTER_FILES).sort());
  });

  // BUG (reported): nothing ever removes them, so each crash mid-write leaves a hidden file in
  // the user's tree for good (it shows in `git status` and in editors' file lists).
  it.fails("are removed by the next start (open + full sync)", async () => {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    const leftover = ".App.tsx.0123456789ab.mpsync.tmp";
    await writeFile(join(h.root, leftover), "half of a pulled file");
    const restarted = await h.newRuntime();
    try {
      const [again] = await restarted.mappings();
      await (await restarted.openDesign(again!, h.emit)).fullSync();
    } finally {
      await restarted.close();
    }
    expect(await readdir(h.root)).not.toContain(leftover);
  });
});

describe("a kill after a pull wrote a file, before its base was saved", () => {
  // BUG (reported): the base moves only in the state.json written after the whole plan ran, so
  // the pulled text on disk looks like a local edit after the restart. When the remote has
  // moved on meanwhile and changed the neighbouring line too, the 3-way merge of "local" (= the
  // old remote) against the new remote overlaps and writes conflict markers, although the user
  // never edited the file. Seen in scripts/soak.mjs about once in 75 runs.
  it.fails("the restart takes the new remote version cleanly, without conflict markers", async () => {
    const v1 = lines("row", 12);
    h = await startHarness({ files: { ...STARTER_FILES, "list.ts": v1 } });
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    // v2 is pulled (written to disk) but the process dies before state.json records it.
    const v2 = v1.replace("// row line 6\n", "// row line 6 (v2)\n");
    await writeFile(join(h.root, "list.ts"), v2);
    // Meanwhile the service moved on: v3 keeps v2's change and edits the next line.
    const v3 = v2.replace("// row line 7\n", "// row line 7 (v3)\n");
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES, "list.ts": v3 }, { newArtifact: true, title: "v3" });
    const restarted = await h.newRuntime();
    try {
      const [again] = await restarted.mappings();
      const s = summarizeCycle(await (await restarted.openDesign(again!, h.emit)).fullSync());
      expect(s.unresolvedConflicts).toEqual([]);
    } finally {
      await restarted.close();
    }
    expect(await h.readLocal("list.ts")).toBe(v3);
  });
});
