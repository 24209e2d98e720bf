/** The real engine (DesignSync + fs adapters + undici client) against the emulator, one-shot cycles. */
import { readFile, readdir, rm, stat, utimes, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { conflictSideName } from "../../src/local/recovery-layout.js";
import { afterEach, describe, expect, it } from "vitest";
import type { DesignSync } from "../../src/sync/design-sync.js";
import type { RemoteSnapshot } from "../../src/sync/remote-snapshot.js";
import { summarizeCycle } from "../../src/sync/cycle-summary.js";
import { lines, startHarness, STARTER_FILES, type Harness } from "../support/harness.js";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function open(harness: Harness): Promise<DesignSync> {
  const [mapping] = await harness.runtime.mappings();
  return harness.runtime.openDesign(mapping!, harness.emit);
}

const isPatch = (e: { method: string; path: string }): boolean => e.method === "PATCH";
const isRead = (e: { method: string; path: string }): boolean => e.method === "POST" && e.path.endsWith("/files/read");

describe("pull", () => {
  it("mirrors every remote file into an empty folder and records the base", async () => {
    h = await startHarness();
    const sync = await open(h);
    const s = summarizeCycle(await sync.fullSync());
    expect(s.pulled.sort()).toEqual(Object.keys(STARTER_FILES).sort());
    for (const [name, text] of Object.entries(STARTER_FILES)) expect(await h.readLocal(name)).toBe(text);
    expect(await readFile(join(h.root, ".mpsync/.gitignore"), "utf8")).toContain("*");
    const state = JSON.parse(await readFile(join(h.root, ".mpsync/state.json"), "utf8")) as { files: Record<string, unknown>; editorId: string };
    expect(Object.keys(state.files).sort()).toEqual(Object.keys(STARTER_FILES).sort());
    expect(state.editorId).toBe(h.editorId);
  });

  it("keeps the scan cache and the daemon's status beside state.json, which holds the bases only", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    // Files older than the scan (the cache never trusts a file written in its own second).
    const old = new Date(Date.now() - 60_000);
    for (const name of Object.keys(STARTER_FILES)) await utimes(join(h.root, name), old, old);
    await sync.fullSync(); // this scan of the pulled files fills the cache
    const statePath = join(h.root, ".mpsync/state.json");
    const state = JSON.parse(await readFile(statePath, "utf8")) as Record<string, unknown>;
    expect(state["scanCache"]).toBeUndefined();
    const cache = JSON.parse(await readFile(join(h.root, ".mpsync/scan-cache.json"), "utf8")) as Record<string, unknown>;
    expect(Object.keys(cache).sort()).toEqual(Object.keys(STARTER_FILES).sort());
    // A status save (what the daemon does every poll) does not rewrite the bases.
    const before = (await stat(statePath)).ino;
    sync.daemon.recordStatus({ isGenerating: false, activeArtifactId: null }, 1);
    await sync.save();
    expect((await stat(statePath)).ino).toBe(before);
    const daemon = JSON.parse(await readFile(join(h.root, ".mpsync/daemon.json"), "utf8")) as Record<string, unknown>;
    expect(daemon["lastStatus"]).toEqual({ isGenerating: false, activeArtifactId: null, at: 1 });
    // ...and a restart reads it back.
    const [mapping] = await h.runtime.mappings();
    expect((await (await h.newRuntime()).openDesign(mapping!, () => undefined)).state.lastStatus?.at).toBe(1);
  });

  it("a second pull with nothing changed writes nothing and sends no PATCH", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    const s = summarizeCycle(await sync.fullSync());
    expect([...s.pulled, ...s.pushed, ...s.conflicts]).toEqual([]);
    expect(h.emu.control.countRequests(isPatch)).toBe(0);
  });

  it("backs up and removes a file the remote artifact dropped, when it was unchanged locally", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    const next = { ...STARTER_FILES };
    delete next["index.css"];
    h.emu.control.setFiles(h.editorId, next, { newArtifact: true, title: "drop css" });
    const s = summarizeCycle(await sync.fullSync());
    expect(s.removed).toEqual(["index.css"]);
    expect(await h.readLocal("index.css")).toBeUndefined();
    const stamps = await readdir(join(h.root, ".mpsync/backups"));
    const backup = await readFile(join(h.root, ".mpsync/backups", stamps[0]!, "index.css"), "utf8");
    expect(backup).toBe(STARTER_FILES["index.css"]);
  });
});

describe("dry run", () => {
  it("plans both directions and changes nothing on disk or on the service", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    h.emu.control.editFile(h.editorId, "index.css", "/* remote */\n");
    await h.writeLocal("App.tsx", "export default 1;\n");
    const s = summarizeCycle(await sync.fullSync({ dryRun: true }));
    expect(s.pulled).toEqual(["index.css"]);
    expect(s.pushed).toEqual(["App.tsx"]);
    expect(await h.readLocal("index.css")).toBe(STARTER_FILES["index.css"]);
    expect(h.remoteFiles()["App.tsx"]).toBe(STARTER_FILES["App.tsx"]);
    expect(h.emu.control.countRequests(isPatch)).toBe(0);
    expect(await sync.localChanges()).toEqual(["App.tsx"]);
  });
});

describe("push", () => {
  it("sends a local edit as one PATCH and moves the base; the next push sends nothing", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    await h.writeLocal("App.tsx", "export default function App() { return null; }\n");
    await h.writeLocal("components/New.tsx", "export const New = 1;\n");
    const s = summarizeCycle(await sync.pushPaths(await sync.localChanges()));
    expect(s.pushed.sort()).toEqual(["App.tsx", "components/New.tsx"]);
    expect(h.remoteFiles()["App.tsx"]).toBe("export default function App() { return null; }\n");
    expect(h.remoteFiles()["components/New.tsx"]).toBe("export const New = 1;\n");
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
    expect(await sync.pushPaths(await sync.localChanges())).toBeUndefined();
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
  });

  it("a push larger than the service takes (413) goes out in halves; a file too large alone is refused once", async () => {
    h = await startHarness({ emulator: { maxBodyBytes: 48 * 1024 } });
    const sync = await open(h);
    await sync.fullSync();
    const text = (i: number): string => `export const n${i} = ${i};\n${"// padding\n".repeat(1000)}`; // ~11 KB
    for (let i = 0; i < 12; i++) await h.writeLocal(`many/f${i}.ts`, text(i));
    await h.writeLocal("huge.ts", "x".repeat(64 * 1024));
    const s = summarizeCycle(await sync.pushPaths(await sync.localChanges()));
    expect(s.pushed.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `many/f${i}.ts`).sort());
    for (let i = 0; i < 12; i++) expect(h.remoteFiles()[`many/f${i}.ts`]).toBe(text(i));
    expect(h.remoteFiles()["huge.ts"]).toBeUndefined();
    const refusals = h.events.filter((e) => e.message.includes("huge.ts"));
    expect(refusals.map((e) => e.message)).toEqual([expect.stringContaining("refused the file huge.ts as too large (413)")]);
    // Each answered PATCH fit the limit; nothing was sent one file at a time but the refused file.
    const patches = h.emu.control.requests().filter(isPatch);
    expect(patches.filter((p) => p.status === 413).length).toBeGreaterThan(0);
    expect(patches.filter((p) => p.status === 200).length).toBeLessThan(12);
    // Every PATCH after the first looked again just before it left (push-parts.ts): these are
    // new names, so by listing the artifact (a name someone created meanwhile is not sent).
    const log = h.emu.control.requests();
    const patchAt = log.flatMap((r, i) => (isPatch(r) ? [i] : []));
    for (const i of patchAt.slice(1)) expect(isRead(log[i - 1]!) || log[i - 1]!.path.endsWith("/active-artifact")).toBe(true);
    // The refused content is not sent again; nothing else is pending.
    const before = h.emu.control.countRequests(isPatch);
    const again = await sync.pushPaths(await sync.localChanges());
    expect(again === undefined ? [] : summarizeCycle(again).pushed).toEqual([]);
    expect(h.emu.control.countRequests(isPatch)).toBe(before);
  });

  it("never overwrites a web-editor edit: both changes of one file are merged", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    const original = STARTER_FILES["App.tsx"]!;
    h.emu.control.editFile(h.editorId, "App.tsx", original.replace("// App line 18", "// remote edit"));
    await h.writeLocal("App.tsx", original.replace("// App line 2", "// local edit"));
    const s = summarizeCycle(await sync.pushPaths(["App.tsx"]));
    expect(s.conflicts).toEqual(["App.tsx"]);
    const merged = original.replace("// App line 2", "// local edit").replace("// App line 18", "// remote edit");
    expect(await h.readLocal("App.tsx")).toBe(merged);
    expect(h.remoteFiles()["App.tsx"]).toBe(merged);
  });

  it("writes git-style markers on overlap, keeps both sides, and never pushes the marked file", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    const original = STARTER_FILES["App.tsx"]!;
    const remote = original.replace("// App line 5", "// remote says hi");
    h.emu.control.editFile(h.editorId, "App.tsx", remote);
    await h.writeLocal("App.tsx", original.replace("// App line 5", "// local says hi"));
    const s = summarizeCycle(await sync.pushPaths(["App.tsx"]));
    expect(s.unresolvedConflicts).toEqual(["App.tsx"]);
    const local = (await h.readLocal("App.tsx"))!;
    expect(local).toMatch(/^<<<<<<< local\n\/\/ local says hi\n\|\|\|\|\|\|\| base\n\/\/ App line 5\n=======\n\/\/ remote says hi\n>>>>>>> remote v\d+$/m);
    expect(h.remoteFiles()["App.tsx"]).toBe(remote);
    // The event names the marker's line (VS Code problem matchers jump to it).
    const markerLine = local.split("\n").indexOf("<<<<<<< local") + 1;
    expect(h.events.find((e) => e.event === "conflict")?.message).toMatch(new RegExp(`^conflict in App\\.tsx:${markerLine}: markers written`));
    const stamps = await readdir(join(h.root, ".mpsync/conflicts"));
    const saved = await readdir(join(h.root, ".mpsync/conflicts", stamps[0]!));
    expect(saved.sort()).toEqual(expect.arrayContaining([conflictSideName("App.tsx", "local"), conflictSideName("App.tsx", "remote")]));
    // Saving again with markers still in place pushes nothing.
    expect(summarizeCycle(await sync.pushPaths(["App.tsx"])).pushed).toEqual([]);
    // Resolving the markers pushes the resolution.
    await h.writeLocal("App.tsx", original.replace("// App line 5", "// both say hi"));
    expect(summarizeCycle(await sync.pushPaths(["App.tsx"])).pushed).toEqual(["App.tsx"]);
    expect(h.remoteFiles()["App.tsx"]).toContain("// both say hi");
  });

  it("does not push a local deletion (the API has no delete) and reports it", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    await rm(join(h.root, "index.css"));
    const s = summarizeCycle(await sync.pushPaths(["index.css"]));
    expect(s.reports).toEqual([{ path: "index.css", reason: "deleted-locally" }]);
    expect(h.remoteFiles()["index.css"]).toBe(STARTER_FILES["index.css"]);
    // A later pull does not re-create it while the remote content is unchanged.
    await sync.fullSync();
    expect(await h.readLocal("index.css")).toBeUndefined();
  });

  it("does not push binary files", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    await writeFile(join(h.root, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]));
    const s = summarizeCycle(await sync.pushPaths(["logo.png"]));
    expect(s.reports).toEqual([{ path: "logo.png", reason: "binary-not-pushed" }]);
    expect(h.remoteFiles()["logo.png"]).toBeUndefined();
  });
});

describe("safety", () => {
  it("refuses hostile remote names: never written, reported", async () => {
    h = await startHarness();
    for (const name of ["../evil.txt", ".git/hooks/pre-commit", "/etc/passwd", "a\\b.txt", "x/../../y", "nul\u0000.txt", ".mpsync/state.json"]) {
      h.emu.control.editFile(h.editorId, name, "pwned");
    }
    const sync = await open(h);
    const s = summarizeCycle(await sync.fullSync());
    expect(s.refusedNames.map((r) => r.name).sort()).toHaveLength(7);
    expect(await h.readLocal("../evil.txt")).toBeUndefined();
    await expect(readFile(join(h.home, "evil.txt"), "utf8")).rejects.toThrow();
    await expect(readFile(join(h.root, ".git/hooks/pre-commit"), "utf8")).rejects.toThrow();
    expect(s.pulled.sort()).toEqual(Object.keys(STARTER_FILES).sort());
  });

  it("finds edits made while no process ran (against the base) and pushes them", async () => {
    h = await startHarness();
    await (await open(h)).fullSync();
    await h.writeLocal("index.css", "body { color: red; }\n");
    const restarted = await h.newRuntime();
    const [mapping] = await restarted.mappings();
    const sync = await restarted.openDesign(mapping!, h.emit);
    const s = summarizeCycle(await sync.fullSync());
    await restarted.close();
    expect(s.pushed).toEqual(["index.css"]);
    expect(h.remoteFiles()["index.css"]).toBe("body { color: red; }\n");
  });

  it("halts on a pull that would remove more than half the files, and removes nothing", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    h.emu.control.setFiles(h.editorId, { "App.tsx": STARTER_FILES["App.tsx"]! }, { newArtifact: true, title: "oops" });
    const s = summarizeCycle(await sync.fullSync());
    expect(s.halted).toMatch(/remove 3 of 4/);
    for (const name of Object.keys(STARTER_FILES)) expect(await h.readLocal(name)).toBeDefined();
    expect(h.events.some((e) => e.event === "halted")).toBe(true);
    // --force proceeds (with backups).
    const forced = summarizeCycle(await sync.fullSync({ force: true }));
    expect(forced.removed.sort()).toEqual(["components/Button.tsx", "index.css", "index.tsx"]);
  });

  it("halts when the remote artifact has no files", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    h.emu.control.setFiles(h.editorId, {}, { newArtifact: true, title: "empty" });
    expect(summarizeCycle(await sync.fullSync()).halted).toMatch(/no files/);
    expect(await h.readLocal("App.tsx")).toBe(STARTER_FILES["App.tsx"]);
  });

  it("a lost state.json never deletes: differing files become conflicts, equal ones re-base", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    await h.writeLocal("index.css", "/* mine */\n");
    await rm(join(h.root, ".mpsync/state.json"));
    h.emu.control.removeFile(h.editorId, "components/Button.tsx");
    const again = await open(h);
    const s = summarizeCycle(await again.fullSync());
    expect(s.removed).toEqual([]);
    expect(s.conflicts).toEqual(["index.css"]);
    expect(await h.readLocal("components/Button.tsx")).toBe(STARTER_FILES["components/Button.tsx"]);
    // Both versions survive somewhere the user can see.
    const stamps = await readdir(join(h.root, ".mpsync/conflicts"));
    const local = await readFile(join(h.root, ".mpsync/conflicts", stamps[0]!, conflictSideName("index.css", "local")), "utf8");
    expect(local).toBe("/* mine */\n");
  });

  it("a save that lands while a pull is in flight is never overwritten", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    h.emu.control.editFile(h.editorId, "index.css", "/* remote */\n");
    // The save lands between the local scan and the local write: fullSync awaits the remote
    // read only once its scan is done, so the save is made when that await asks for the
    // snapshot (a thenable's then() runs at the await), and the write comes after.
    const snapshot = sync.readRemote();
    const remoteAfterScan = {
      then(ok: (s: RemoteSnapshot) => unknown, fail: (e: unknown) => unknown) {
        return h
          .writeLocal("index.css", "/* saved during pull */\n")
          .then(() => snapshot)
          .then(ok, fail);
      },
    } as unknown as Promise<RemoteSnapshot>;
    await sync.fullSync({ remote: remoteAfterScan });
    const local = (await h.readLocal("index.css"))!;
    expect(local).toBe("/* saved during pull */\n");
    // The next cycle reconciles both edits; neither text is lost.
    await sync.fullSync();
    const after = (await h.readLocal("index.css"))!;
    expect(after).toContain("saved during pull");
    expect(after).toContain("remote");
  });
});

describe("policies", () => {
  it("keep-remote saves the local copy and writes the remote", async () => {
    h = await startHarness({ syncrc: { onConflict: "keep-remote" } });
    const sync = await open(h);
    await sync.fullSync();
    h.emu.control.editFile(h.editorId, "index.css", "/* remote */\n");
    await h.writeLocal("index.css", "/* local */\n");
    await sync.fullSync();
    expect(await h.readLocal("index.css")).toBe("/* remote */\n");
    const stamps = await readdir(join(h.root, ".mpsync/conflicts"));
    expect(await readFile(join(h.root, ".mpsync/conflicts", stamps[0]!, conflictSideName("index.css", "local")), "utf8")).toBe("/* local */\n");
  });

  it("keep-local pushes local and saves the remote copy", async () => {
    h = await startHarness({ syncrc: { onConflict: "keep-local" } });
    const sync = await open(h);
    await sync.fullSync();
    h.emu.control.editFile(h.editorId, "index.css", "/* remote */\n");
    await h.writeLocal("index.css", "/* local */\n");
    await sync.fullSync();
    expect(h.remoteFiles()["index.css"]).toBe("/* local */\n");
    const stamps = await readdir(join(h.root, ".mpsync/conflicts"));
    expect(await readFile(join(h.root, ".mpsync/conflicts", stamps[0]!, conflictSideName("index.css", "remote")), "utf8")).toBe("/* remote */\n");
  });

  it("modify beats delete: a file deleted remotely but changed locally is kept and pushed", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    await mkdir(join(h.root, "components"), { recursive: true });
    await h.writeLocal("components/Button.tsx", lines("Button changed", 3));
    const next = { ...STARTER_FILES };
    delete next["components/Button.tsx"];
    h.emu.control.setFiles(h.editorId, next, { newArtifact: true, title: "drop button" });
    await sync.fullSync();
    expect(await h.readLocal("components/Button.tsx")).toBe(lines("Button changed", 3));
    expect(h.remoteFiles()["components/Button.tsx"]).toBe(lines("Button changed", 3));
  });
});

describe("a generation racing a push", () => {
  // A version generated from the pre-push content, made active right after our PATCH, looks
  // exactly like the user picking an older version in the web editor: the engine follows the
  // new active version (README, "How sync works") and loses nothing: the edit is backed up, stays
  // in the version it was pushed to, and a conflict event says where (src/sync/displaced.ts).
  it("a version made without the pushed edit (its generation was running when the push landed): the edit is merged back once and said; removed again, that stands", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    const original = STARTER_FILES["App.tsx"]!;
    const mine = original.replace("// App line 2", "// my edit");
    await h.writeLocal("App.tsx", mine);
    expect(summarizeCycle(await sync.pushPaths(["App.tsx"])).pushed).toEqual(["App.tsx"]);
    const generated = original.replace("// App line 18", "// generated line");
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES, "App.tsx": generated }, { newArtifact: true, title: "generation" });
    const merged = mine.replace("// App line 18", "// generated line");
    expect(summarizeCycle(await sync.fullSync()).pushed).toEqual(["App.tsx"]);
    expect(await h.readLocal("App.tsx")).toBe(merged);
    expect(h.emu.control.getFiles(h.editorId)["App.tsx"]).toBe(merged);
    const said = h.events.filter((e) => e.event === "conflict");
    expect(said.map((e) => [e.files, e.reapplied, e.message])).toEqual([
      [["App.tsx"], true, "re-applied your edit to App.tsx: the new version was built without it, and both edits are now in the file"],
    ]);
    // Another version without it: the removal stands, said once with the command that brings it back.
    const again = original.replace("// App line 18", "// generated again");
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES, "App.tsx": again }, { newArtifact: true, title: "second generation" });
    const third = await sync.fullSync();
    expect(summarizeCycle(third).pushed).toEqual([]);
    expect(await h.readLocal("App.tsx")).toBe(again);
    expect(h.events.filter((e) => e.event === "conflict")).toHaveLength(1);
    const notices = h.events.filter((e) => e.event === "notice" && String(e.message).includes("App.tsx"));
    expect(notices.map((e) => e.message)).toEqual([
      "App.tsx: another writer removed your edit again after mpsync merged it back; their version stands (bring yours back with mpsync restore App.tsx)",
    ]);
    await sync.fullSync();
    expect(h.events.filter((e) => e.event === "notice" && String(e.message).includes("App.tsx"))).toHaveLength(1);
  });

  it("a version built on the pushed edit is a plain pull, with no conflict", async () => {
    h = await startHarness();
    const sync = await open(h);
    await sync.fullSync();
    const mine = STARTER_FILES["App.tsx"]!.replace("// App line 2", "// my edit");
    await h.writeLocal("App.tsx", mine);
    await sync.pushPaths(["App.tsx"]);
    const generated = mine.replace("// App line 18", "// generated line");
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES, "App.tsx": generated }, { newArtifact: true, title: "generation" });
    expect(summarizeCycle(await sync.fullSync()).pulled).toEqual(["App.tsx"]);
    expect(h.events.filter((e) => e.event === "conflict")).toEqual([]);
  });
});
