import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CONFLICT_SIDES, conflictSideName } from "../../src/local/recovery-layout.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/state-store.js";
import type { DesignStore } from "../../src/sync/ports.js";
import { hashContent } from "../../src/core/hash.js";
import { makeTempDir } from "../support/temp-dir.js";

let root: string;
let cleanup: () => Promise<void>;
const fixedClock = { now: () => Date.UTC(2024, 0, 2, 3, 4, 5, 6) };

beforeEach(async () => {
  const tmp = await makeTempDir("state");
  root = tmp.dir;
  cleanup = tmp.cleanup;
});
afterEach(async () => cleanup());

const h = (s: string): string => hashContent(s);

describe("state.json", () => {
  it("serves as the engine's DesignStore port (state.json, base texts, conflicts; fs-adapters.ts adds daemon.json and the scan cache)", () => {
    const port: Omit<DesignStore, "load" | "saveDaemon" | "hasUnsavedCache"> = openStateStore(root);
    expect(typeof port.save).toBe("function");
  });

  it("reports a missing state and returns an empty one", async () => {
    const store = openStateStore(root);
    expect(await store.load()).toEqual({ state: { version: 1, files: {} }, recovered: "missing" });
  });

  it("round-trips a full state and lays out .mpsync/", async () => {
    const store = openStateStore(root);
    const state = {
      editorId: "abc",
      sourceDesign: "https://www.magicpatterns.com/c/abc",
      artifactId: "00000000-0000-0000-0000-000000000000",
      files: { "App.tsx": { hash: h("a") } },
      lastPollAt: 1,
      scanCache: { "App.tsx": { size: 1, mtimeMs: 2, ctimeMs: 3, ino: 4, hash: h("a"), binary: false, hasMarkers: false } },
      deletedLocally: ["old.tsx"],
      halted: { reason: "mass delete", at: 5 },
      lastError: { code: "NETWORK", message: "offline", at: 6 },
      refusedContent: { "bad.tsx": h("b") },
      futureField: { kept: true },
    };
    await store.save(state);
    expect(await store.load()).toEqual({ state: { version: 1, ...state } });
    expect(await readFile(join(root, ".mpsync", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("saves land in call order: a journal save (no fsync) and a durable one started after it", async () => {
    const store = openStateStore(root);
    const journal = { editorId: "abc", files: {}, pending: { "App.tsx": h("a") } };
    const durable = { editorId: "abc", files: { "App.tsx": { hash: h("a") } } };
    await Promise.all([store.save(journal, { durable: false }), store.save(durable)]);
    expect(await store.load()).toEqual({ state: { version: 1, ...durable } });
    await Promise.all([store.save(durable), store.save(journal, { durable: false })]);
    expect(await store.load()).toEqual({ state: { version: 1, ...journal } });
    expect((await readdir(join(root, ".mpsync"))).filter((n) => n.includes("tmp"))).toEqual([]);
  });

  it("moves a corrupt state.json aside, never deletes it, and starts empty", async () => {
    await mkdir(join(root, ".mpsync"));
    await writeFile(join(root, ".mpsync", "state.json"), "{ not json");
    const store = openStateStore(root, { clock: fixedClock });
    const loaded = await store.load();
    expect(loaded.state).toEqual({ version: 1, files: {} });
    expect(loaded.recovered).toBe("corrupt");
    expect(loaded.detail).toMatch(/not valid JSON/);
    expect(loaded.movedTo).toBe(join(root, ".mpsync", "state.json.corrupt-2024-01-02T03-04-05-006Z"));
    expect(await readFile(loaded.movedTo ?? "", "utf8")).toBe("{ not json");

    // A second corruption at the same instant keeps both copies.
    await writeFile(join(root, ".mpsync", "state.json"), "[]");
    const again = await store.load();
    expect(again.recovered).toBe("corrupt");
    const names = (await readdir(join(root, ".mpsync"))).filter((n) => n.startsWith("state.json.corrupt-"));
    expect(names).toHaveLength(2);
    expect(await readFile(again.movedTo ?? "", "utf8")).toBe("[]");
  });

  it("treats a schema violation as corrupt and names the field", async () => {
    await mkdir(join(root, ".mpsync"));
    await writeFile(join(root, ".mpsync", "state.json"), JSON.stringify({ version: 1, files: { "a.ts": { hash: "nope" } } }));
    const loaded = await openStateStore(root, { clock: fixedClock }).load();
    expect(loaded.recovered).toBe("corrupt");
    expect(loaded.detail).toMatch(/files\.a\.ts\.hash/);
  });

  it("drops only a malformed scan cache", async () => {
    await mkdir(join(root, ".mpsync"));
    const state = { version: 1, files: { "a.ts": { hash: h("a") } }, scanCache: { "a.ts": { size: "big" } } };
    await writeFile(join(root, ".mpsync", "state.json"), JSON.stringify(state));
    const loaded = await openStateStore(root).load();
    expect(loaded.recovered).toBeUndefined();
    expect(loaded.state.files).toEqual({ "a.ts": { hash: h("a") } });
    expect(loaded.state.scanCache).toBeUndefined();
  });

  it("refuses to save an invalid state", async () => {
    await expect(openStateStore(root).save({ files: { "a.ts": { hash: "xyz" } } })).rejects.toThrow();
  });
});

describe("base texts", () => {
  it("stores by content, reads back, and prunes", async () => {
    const store = openStateStore(root);
    const a = await store.putBase("alpha");
    const b = await store.putBase("beta");
    expect(a).toBe(h("alpha"));
    expect(await store.putBase("alpha")).toBe(a);
    expect(await store.getBase(a)).toBe("alpha");
    await store.pruneBases(new Set([b]));
    expect(await store.getBase(a)).toBeUndefined();
    expect(await store.getBase(b)).toBe("beta");
  });

  it("rejects a damaged base and a path-like hash", async () => {
    const store = openStateStore(root);
    const a = await store.putBase("alpha");
    await writeFile(join(root, ".mpsync", "base", a), "tampered");
    expect(await store.getBase(a)).toBeUndefined();
    expect(await store.getBase("../state.json")).toBeUndefined();
  });

  it("prunes nothing when no base was ever stored", async () => {
    await expect(openStateStore(root).pruneBases([])).resolves.toBeUndefined();
  });
});

describe("conflicts", () => {
  it("saves each side under conflicts/<stamp>/, named by conflictSideName", async () => {
    const store = openStateStore(root);
    await store.saveConflict("src/App.tsx", { local: "L", remote: "R", base: "B" }, "s1");
    const dir = join(store.conflictsDir, "s1", "src");
    expect((await readdir(dir)).sort()).toEqual(CONFLICT_SIDES.map((side) => conflictSideName("App.tsx", side)).sort());
    expect(await readFile(join(dir, conflictSideName("App.tsx", "remote")), "utf8")).toBe("R");
    await store.saveConflict("b.ts", { local: "only" }, "s1");
    expect(await readdir(join(store.conflictsDir, "s1"))).toContain(conflictSideName("b.ts", "local"));
    expect(store.backupsDir).toBe(join(root, ".mpsync", "backups"));
  });

  it("refuses paths that leave the conflicts folder", async () => {
    const store = openStateStore(root);
    await expect(store.saveConflict("../../x", { local: "L" }, "s1")).rejects.toMatchObject({ reason: "invalid" });
    await expect(store.saveConflict("x", { local: "L" }, "../s")).rejects.toMatchObject({ reason: "invalid" });
  });
});
