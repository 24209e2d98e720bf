import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BACKUP_REUSE_MS,
  backupsToPrune,
  DAY_MS,
  describeBackups,
  describeRetention,
  forgetOldBackup,
  formatBytes,
  measureBackups,
  pruneBackups,
  pruneBackupsAndSay,
  type PruneFs,
} from "../../src/local/backup-retention.js";
import type { BackupMemory } from "../../src/local/local-fs.js";
import { conflictSideName, recoveryStamp } from "../../src/local/recovery-layout.js";
import { createSilentLogger } from "../../src/log/logger.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0, 0);
const ago = (ms: number): string => recoveryStamp(NOW - ms);

async function put(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

describe("backupsToPrune (the rule)", () => {
  const folder = (name: string) => ({ name, kind: "folder" as const });

  it.each([
    { name: "a day before the limit", age: 29 * DAY_MS, pruned: false },
    { name: "one millisecond before the limit", age: 30 * DAY_MS - 1, pruned: false },
    { name: "exactly at the limit", age: 30 * DAY_MS, pruned: false },
    { name: "one millisecond past the limit", age: 30 * DAY_MS + 1, pruned: true },
    { name: "a year past", age: 365 * DAY_MS, pruned: true },
    { name: "stamped in the future (clock stepped back)", age: -DAY_MS, pruned: false },
  ])("keepDays 30, $name: pruned $pruned", ({ age, pruned }) => {
    const stamp = ago(age);
    expect(backupsToPrune([folder(stamp)], NOW, 30)).toEqual(pruned ? [stamp] : []);
  });

  it("0 keeps everything forever", () => {
    expect(backupsToPrune([folder(ago(10_000 * DAY_MS))], NOW, 0)).toEqual([]);
  });

  it("prunes oldest first, folders and links named by a stamp only", () => {
    const [old, older, young] = [ago(40 * DAY_MS), ago(50 * DAY_MS), ago(DAY_MS)];
    const entries = [
      folder(old),
      { name: older, kind: "link" as const },
      folder(young),
      folder("notes"),
      { name: ago(60 * DAY_MS), kind: "other" as const },
      folder("2020-01-01"),
    ];
    expect(backupsToPrune(entries, NOW, 30)).toEqual([older, old]);
  });
});

describe("pruneBackups (a real folder)", () => {
  it("removes old stamp folders whole, keeps young ones, foreign names and conflicts/", async () => {
    const root = await tempDir();
    const backups = join(root, ".mpsync", "backups");
    const [old, young] = [ago(31 * DAY_MS), ago(29 * DAY_MS)];
    await put(join(backups, old, "src", "App.tsx"), "old");
    await put(join(backups, young, "src", "App.tsx"), "young");
    await put(join(backups, "README.txt"), "mine");
    await put(join(backups, "keep-me", "a.txt"), "mine");
    await put(join(root, ".mpsync", "conflicts", old, conflictSideName("App.tsx", "local")), "side");

    const outcome = await pruneBackups(backups, { now: NOW, keepDays: 30 });

    expect(outcome).toEqual({ removed: [old], failures: [] });
    expect((await readdir(backups)).sort()).toEqual(["README.txt", "keep-me", young].sort());
    expect(await readFile(join(root, ".mpsync", "conflicts", old, conflictSideName("App.tsx", "local")), "utf8")).toBe("side");
  });

  it("keeps everything with keepDays 0, and a missing backups/ is nothing to do", async () => {
    const root = await tempDir();
    const backups = join(root, "backups");
    await put(join(backups, ago(1000 * DAY_MS), "a.ts"), "a");
    expect(await pruneBackups(backups, { now: NOW, keepDays: 0 })).toEqual({ removed: [], failures: [] });
    expect(await readdir(backups)).toHaveLength(1);
    expect(await pruneBackups(join(root, "missing"), { now: NOW, keepDays: 30 })).toEqual({ removed: [], failures: [] });
  });

  it("removes a link as a link: what it points at (outside backups/) stays", async () => {
    const root = await tempDir();
    const backups = join(root, "backups");
    const outside = join(root, "precious");
    await put(join(outside, "work.ts"), "keep");
    const [linkStamp, folderStamp] = [ago(40 * DAY_MS), ago(41 * DAY_MS)];
    await mkdir(backups, { recursive: true });
    await symlink(outside, join(backups, linkStamp));
    await put(join(backups, folderStamp, "a.ts"), "a");
    await symlink(outside, join(backups, folderStamp, "inner-link"));

    const outcome = await pruneBackups(backups, { now: NOW, keepDays: 30 });

    expect(outcome.removed).toEqual([folderStamp, linkStamp]);
    expect(await readdir(backups)).toEqual([]);
    expect(await readFile(join(outside, "work.ts"), "utf8")).toBe("keep");
  });

  it("never follows a backups/ that is a link", async () => {
    const root = await tempDir();
    const outside = join(root, "elsewhere");
    await put(join(outside, ago(40 * DAY_MS), "a.ts"), "a");
    await symlink(outside, join(root, "backups"));
    const outcome = await pruneBackups(join(root, "backups"), { now: NOW, keepDays: 30 });
    expect(outcome).toEqual({ removed: [], failures: [{ stamp: undefined, code: "ENOTDIR" }] });
    expect(await readdir(outside)).toHaveLength(1);
  });

  it("a folder it cannot remove is a failure; the others still go, and one warning says so", async () => {
    const root = await tempDir();
    const backups = join(root, "backups");
    const [stuck, other] = [ago(50 * DAY_MS), ago(40 * DAY_MS)];
    await put(join(backups, stuck, "a.ts"), "a");
    await put(join(backups, other, "a.ts"), "a");
    const real: PruneFs = {
      lstat,
      readdir: async (d) => (await readdir(d, { withFileTypes: true })).map((e) => ({ name: e.name, kind: e.isDirectory() ? "folder" : "other" })),
      rm,
    };
    const refusing: PruneFs = {
      ...real,
      rm: (path, options) => (String(path).endsWith(stuck) ? Promise.reject(Object.assign(new Error("EACCES"), { code: "EACCES" })) : rm(path, options)),
    };
    const lines: { level: string; msg: string }[] = [];
    const logger = createSilentLogger();
    logger.warn = ((_: unknown, msg: string) => void lines.push({ level: "warn", msg })) as typeof logger.warn;
    logger.info = ((_: unknown, msg: string) => void lines.push({ level: "info", msg })) as typeof logger.info;

    const outcome = await pruneBackupsAndSay(backups, { now: NOW, keepDays: 30, fs: refusing }, logger);

    expect(outcome).toEqual({ removed: [other], failures: [{ stamp: stuck, code: "EACCES" }] });
    expect(await readdir(backups)).toEqual([stuck]);
    expect(lines).toEqual([
      { level: "info", msg: "removed 1 backup folder(s) older than 30 days from .mpsync/backups" },
      { level: "warn", msg: `could not prune .mpsync/backups/${stuck} (EACCES): backups are kept, sync goes on` },
    ]);
  });

  it("an unreadable backups/ (a file in its place) is one failure, never a throw", async () => {
    const root = await tempDir();
    await writeFile(join(root, "backups"), "not a folder");
    expect(await pruneBackups(join(root, "backups"), { now: NOW, keepDays: 30 })).toEqual({ removed: [], failures: [{ stamp: undefined, code: "ENOTDIR" }] });
  });
});

describe("what backups hold", () => {
  it("counts stamp folders, files and bytes", async () => {
    const root = await tempDir();
    const backups = join(root, "backups");
    await put(join(backups, ago(DAY_MS), "src", "a.ts"), "12345");
    await put(join(backups, ago(2 * DAY_MS), "b.ts"), "123");
    expect(await measureBackups(backups)).toEqual({ folders: 2, files: 2, bytes: 8 });
    expect(await measureBackups(join(root, "none"))).toEqual({ folders: 0, files: 0, bytes: 0 });
  });

  it("says sizes and the rule as people read them", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(3 * 1024 * 1024)).toBe("3.0 MiB");
    expect(describeRetention(30)).toBe("kept 30 days (keepBackupsDays)");
    expect(describeRetention(1)).toBe("kept 1 day (keepBackupsDays)");
    expect(describeRetention(0)).toBe("kept forever (keepBackupsDays: 0)");
    expect(describeBackups({ folders: 1, files: 3, bytes: 2048 }, 7)).toBe("1 folder, 3 files, 2.0 KiB; kept 7 days (keepBackupsDays)");
  });
});

describe("forgetOldBackup", () => {
  it("forgets a remembered backup older than the reuse window, keeps a recent one", () => {
    const dir = "/f/.mpsync/backups";
    const memory: BackupMemory = new Map([
      ["old.ts", { hash: "h1", path: join(dir, ago(2 * BACKUP_REUSE_MS), "old.ts") }],
      ["new.ts", { hash: "h2", path: join(dir, ago(BACKUP_REUSE_MS / 2), "new.ts") }],
    ]);
    forgetOldBackup(memory, dir, "old.ts", recoveryStamp(NOW));
    forgetOldBackup(memory, dir, "new.ts", recoveryStamp(NOW));
    forgetOldBackup(memory, dir, "never.ts", recoveryStamp(NOW));
    expect([...memory.keys()]).toEqual(["new.ts"]);
  });
});
