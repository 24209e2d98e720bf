/**
 * What a `kill -9` mid-cycle leaves behind, planted directly so the checks are fast and
 * deterministic (scripts/soak.mjs finds both at scale with real kills):
 * - writeFileAtomicallyGuarded puts its temp file beside the target
 *   (`.<name>.<hex>.mpsync.tmp`); a kill between the write and the rename leaves it there;
 * - a kill after a pull wrote a file but before state.json recorded its base leaves the
 *   tool's own write looking like a local edit;
 * - a small new file is created under its own name (create-in-place.ts): a kill in the middle
 *   leaves it torn, with mode 000.
 */
import { chmod, lstat, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CREATE_IN_PLACE_SUPPORTED, defaultFileMode, INCOMPLETE_MODE } from "../../src/local/create-in-place.js";
import { createSilentLogger } from "../../src/log/logger.js";
import type { Mapping } from "../../src/runtime.js";
import { summarizeCycle } from "../../src/sync/cycle-summary.js";
import { DesignSync } from "../../src/sync/design-sync.js";
import { openFsFolder } from "../../src/sync/fs-adapters.js";
import { lines, startHarness, STARTER_FILES, type Harness } from "../support/harness.js";

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

  // Regression: nothing ever removed them, so each crash mid-write left a hidden file in the
  // user's tree for good (it showed in `git status` and in editors' file lists).
  it("are removed by the next start that holds the folder lock", async () => {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    const leftover = ".App.tsx.0123456789ab.mpsync.tmp";
    await writeFile(join(h.root, leftover), "half of a pulled file");
    const restarted = await h.newRuntime();
    try {
      const [again] = await restarted.mappings();
      // Without the lock (e.g. `status` beside a running daemon) it may be a live write: kept.
      await (await restarted.openDesign(again!, h.emit)).fullSync({ dryRun: true });
      expect(await readdir(h.root)).toContain(leftover);
      await (await restarted.openDesign(again!, h.emit, { holdsLock: true })).fullSync();
    } finally {
      await restarted.close();
    }
    expect(await readdir(h.root)).not.toContain(leftover);
  });

  // A checked remove first moves the file to a held name (atomic-write.ts removeHeld): a kill
  // before the check decided leaves the user's text under that name only.
  it("a held name whose file is gone goes back under its name; one beside its file is removed", async () => {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    await writeFile(join(h.root, ".mine.ts.k1a2b3.held.mpsync.tmp"), "a user's edit");
    await writeFile(join(h.root, ".App.tsx.k1a2b4.held.mpsync.tmp"), "an older App.tsx");
    const before = await readFile(join(h.root, "App.tsx"), "utf8");
    const restarted = await h.newRuntime();
    try {
      const [again] = await restarted.mappings();
      await (await restarted.openDesign(again!, h.emit, { holdsLock: true })).fullSync();
    } finally {
      await restarted.close();
    }
    expect((await readdir(h.root)).filter((n) => n.endsWith(".mpsync.tmp"))).toEqual([]);
    expect(await readFile(join(h.root, "mine.ts"), "utf8")).toBe("a user's edit");
    expect(h.remoteFiles()["mine.ts"]).toBe("a user's edit");
    expect(await readFile(join(h.root, "App.tsx"), "utf8")).toBe(before);
  });
});

describe("a kill after a pull wrote a file, before its base was saved", () => {
  // Regression (found by scripts/soak.mjs about once in 75 runs): the base moved only in the
  // state.json written after the whole plan ran, so the pulled text on disk looked like a local
  // edit after the restart; when the remote had moved on and changed the neighbouring line too,
  // the 3-way merge overlapped and wrote conflict markers the user never caused.
  it("the restart takes the new remote version cleanly, without conflict markers", async () => {
    const v1 = lines("row", 12);
    h = await startHarness({ files: { ...STARTER_FILES, "list.ts": v1 } });
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    // v2 is pulled (written to disk) but the process dies before state.json records it: the
    // cycle's last step (making the writes durable, just before the state save) never returns.
    const v2 = v1.replace("// row line 6\n", "// row line 6 (v2)\n");
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES, "list.ts": v2 }, { newArtifact: true, title: "v2" });
    await killedBeforeStateSave(h, mapping!);
    expect(await h.readLocal("list.ts")).toBe(v2);
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

describe("a kill while a pull creates a new file", () => {
  // A small new file is created under its own name (local/create-in-place.ts), with mode 000
  // until its whole content is written: a kill between the write and the chmod leaves part of
  // the text under the final name, which only that mode and the pull journal tell apart from a
  // user's file; taken for a local add, it would be an add/add conflict with the remote.
  const name = "components/New.tsx";

  async function killedMidCreate(text: string): Promise<Mapping> {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES, [name]: text }, { newArtifact: true, title: "v2" });
    // The pull journal is saved and the file written; the state save never comes.
    await killedBeforeStateSave(h, mapping!);
    return mapping!;
  }

  async function restartWithLock(): Promise<ReturnType<typeof summarizeCycle>> {
    const restarted = await h!.newRuntime();
    try {
      const [again] = await restarted.mappings();
      return summarizeCycle(await (await restarted.openDesign(again!, h!.emit, { holdsLock: true })).fullSync());
    } finally {
      await restarted.close();
    }
  }

  it.runIf(CREATE_IN_PLACE_SUPPORTED)("the restart removes the torn file and pulls it whole: no conflict, nothing pushed", async () => {
    const text = lines("new", 40);
    await killedMidCreate(text);
    const file = join(h!.root, name);
    await writeFile(file, text.slice(0, 100));
    await chmod(file, INCOMPLETE_MODE);
    const s = await restartWithLock();
    expect(s.conflicts).toEqual([]);
    expect(s.pushed).toEqual([]);
    expect(await h!.readLocal(name)).toBe(text);
    expect((await lstat(file)).mode & 0o7777).toBe(defaultFileMode());
    expect(h!.remoteFiles()[name]).toBe(text);
  });

  it("a file of the user's under that name (any other mode) is kept, as a conflict", async () => {
    const text = lines("new", 40);
    await killedMidCreate(text);
    await writeFile(join(h!.root, name), "// the user's own New.tsx\n");
    const s = await restartWithLock();
    expect(s.conflicts).toEqual([name]);
    expect(await h!.readLocal(name)).toContain("// the user's own New.tsx\n");
    expect(h!.remoteFiles()[name]).toBe(text);
  });
});

describe("a kill after a PATCH was sent, before its base was saved", () => {
  // A new file was pushed, the process died before recording it, and the web editor then
  // changed the file. The remote does not hold exactly what was sent, which is the only proof
  // that a PATCH whose answer never came back landed (a failed PATCH followed by a remote
  // change must never be taken for one that landed). With no proof and no base, both
  // texts are kept as one reported conflict: nothing is pulled over the edit.
  it("a web edit made after the push is a reported conflict at restart, both texts kept", async () => {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    const mine = lines("mine", 8);
    await h.writeLocal("new.ts", mine);
    await killedBeforeStateSave(h, mapping!);
    expect(h.remoteFiles()["new.ts"]).toBe(mine); // the PATCH landed
    const edited = mine.replace("// mine line 7\n", "// mine line 7 (web)\n");
    h.emu.control.editFile(h.editorId, "new.ts", edited);
    const restarted = await h.newRuntime();
    try {
      const [again] = await restarted.mappings();
      const s = summarizeCycle(await (await restarted.openDesign(again!, h.emit, { holdsLock: true })).fullSync());
      expect(s.conflicts).toEqual(["new.ts"]);
    } finally {
      await restarted.close();
    }
    const local = await h.readLocal("new.ts");
    expect(local).toContain("// mine line 7 (web)\n");
    expect(local).toContain("// mine line 7\n");
    expect(h.remoteFiles()["new.ts"]).toBe(edited);
  });

  it("a PATCH that never landed is sent again at restart", async () => {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    await h.writeLocal("index.css", "/* mine */\n");
    // Not retried (unlike a dropped connection): the PATCH certainly did not land.
    h.emu.control.failNext({ method: "PATCH" }, { status: 400, body: JSON.stringify({ error: "nope" }) });
    await killedBeforeStateSave(h, mapping!);
    expect(h.remoteFiles()["index.css"]).toBe(STARTER_FILES["index.css"]);
    const restarted = await h.newRuntime();
    try {
      const [again] = await restarted.mappings();
      const s = summarizeCycle(await (await restarted.openDesign(again!, h.emit, { holdsLock: true })).fullSync());
      expect(s.pushed).toEqual(["index.css"]);
    } finally {
      await restarted.close();
    }
    expect(h.remoteFiles()["index.css"]).toBe("/* mine */\n");
  });
});

/** Runs a full sync on the real folder that "dies" right before its state save. */
async function killedBeforeStateSave(harness: Harness, mapping: Mapping, failure: RegExp = /killed/): Promise<void> {
  const { config } = await harness.runtime.config();
  const folder = await openFsFolder(mapping.root, config.ignore, harness.runtime.clock);
  const sync = new DesignSync({
    dir: mapping.dir,
    design: mapping.design,
    client: await harness.runtime.client(),
    local: {
      ...folder.local,
      flush: () => Promise.reject(new Error("killed")),
    },
    matcher: folder.matcher,
    store: folder.store,
    policy: "merge",
    logger: createSilentLogger(),
    emit: () => undefined,
    clock: harness.runtime.clock,
  });
  await sync.open();
  await expect(sync.fullSync()).rejects.toThrow(failure);
}
