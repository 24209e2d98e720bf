import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { backupLocalFile } from "../../src/local/local-fs.js";
import {
  backupPath,
  conflictSideName,
  conflictSidePath,
  listBackups,
  listConflictedPaths,
  listConflictSides,
  listKeptFiles,
  recoveryStamp,
  shownBackupPath,
  stampTime,
} from "../../src/local/recovery-layout.js";
import { newWriteSession } from "../../src/local/write-session.js";
import { openStateStore } from "../../src/state/state-store.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();
const AT = Date.UTC(2026, 10, 22, 15, 44, 20, 123);

async function put(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

describe("recovery layout", () => {
  it("a stamp is one folder name that reads back as its time", () => {
    expect(recoveryStamp(AT)).toBe("2026-11-22T15-44-20-123Z");
    expect(stampTime(recoveryStamp(AT))).toBe(AT);
    expect(stampTime("2026-11-22")).toBeUndefined();
    expect(shownBackupPath(recoveryStamp(AT), "src/App.tsx")).toBe(".mpsync/backups/2026-11-22T15-44-20-123Z/src/App.tsx");
  });

  it("names a conflict's side as README says (`PATH.local|.remote|.base`), and reads the name back", async () => {
    expect(conflictSideName("src/App.tsx", "local")).toBe("src/App.tsx.local");
    expect(conflictSidePath("/c", "s1", "src/App.tsx", "base")).toBe(join("/c", "s1", "src", "App.tsx.base"));
    const dir = await tempDir();
    await put(join(dir, "s1", "src", "App.tsx.remote"), "R\n");
    await put(join(dir, "s1", "src", "App.tsx.orig"), "not a side\n");
    expect(await listConflictedPaths(dir)).toEqual(["src/App.tsx"]);
  });

  it("refuses a stamp or a name that leaves its folder", () => {
    expect(() => backupPath("/b", "../x", "a.ts")).toThrow(/one folder name/);
    expect(() => backupPath("/b", "s1", "../../a.ts")).toThrow();
    expect(() => conflictSidePath("/c", "s1/s2", "a.ts", "local")).toThrow(/one folder name/);
    expect(backupPath("/b", "s1", "src/a.ts", 2)).toBe(join("/b", "s1", "src", "a.ts.2"));
  });

  it("a backup made in a cycle's write session is left to the session's flush", async () => {
    const root = await tempDir();
    const store = openStateStore(root);
    const session = newWriteSession();
    await put(join(root, "src", "a.ts"), "one\n");
    const copy = await backupLocalFile(root, "src/a.ts", store.backupsDir, recoveryStamp(AT), { session });
    expect(copy).toBe(backupPath(store.backupsDir, recoveryStamp(AT), "src/a.ts"));
    expect(session.written).toEqual([copy]);
  });

  it("lists what the writers wrote: backups with their other copies, conflict sides newest first", async () => {
    const root = await tempDir();
    const store = openStateStore(root);
    const [older, newer] = [recoveryStamp(AT), recoveryStamp(AT + 60_000)];
    await put(join(root, "src", "a.ts"), "one\n");
    await backupLocalFile(root, "src/a.ts", store.backupsDir, older);
    await writeFile(join(root, "src", "a.ts"), "two\n");
    await backupLocalFile(root, "src/a.ts", store.backupsDir, older);
    await put(join(store.backupsDir, older, "src", "a.ts.bak"), "not a backup of a.ts\n");
    await store.saveConflict("src/a.ts", { local: "L1\n", remote: "R1\n" }, older);
    await store.saveConflict("src/a.ts", { local: "L2\n", base: "B2\n" }, newer);
    await store.saveConflict("b.css", { remote: "R\n" }, newer);

    const backups = await listBackups(store.backupsDir, "src/a.ts");
    expect(backups.map((b) => b.file.slice(b.file.lastIndexOf("/") + 1)).sort()).toEqual(["a.ts", "a.ts.1"]);
    expect(backups.every((b) => b.at === AT)).toBe(true);
    const sides = await listConflictSides(store.conflictsDir, "src/a.ts");
    expect(sides.map((s) => [s.at, s.side])).toEqual([
      [AT + 60_000, "local"],
      [AT + 60_000, "base"],
      [AT, "local"],
      [AT, "remote"],
    ]);
    expect(await listConflictedPaths(store.conflictsDir)).toEqual(["b.css", "src/a.ts"]);
    expect((await listKeptFiles(store.dir)).length).toBe(3 + 4 + 1);
  });

  it("lists nothing for a folder that never kept anything", async () => {
    const root = await tempDir();
    const store = openStateStore(root);
    expect(await listBackups(store.backupsDir, "a.ts")).toEqual([]);
    expect(await listConflictSides(store.conflictsDir, "a.ts")).toEqual([]);
    expect(await listConflictedPaths(store.conflictsDir)).toEqual([]);
    expect(await listKeptFiles(store.dir)).toEqual([]);
  });
});
