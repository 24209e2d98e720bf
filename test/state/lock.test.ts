import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { hostname, uptime } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireFolderLock, folderLockPath, isLockHolderAlive, readFolderLock } from "../../src/state/lock.js";
import { makeTempDir } from "../support/temp-dir.js";

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const tmp = await makeTempDir("lock");
  root = tmp.dir;
  cleanup = tmp.cleanup;
});
afterEach(async () => cleanup());

async function writeLock(info: object): Promise<void> {
  await mkdir(join(root, ".mpsync"), { recursive: true });
  await writeFile(folderLockPath(root), JSON.stringify(info));
}

/** The pid of a process that has exited (and was reaped), so kill(pid, 0) answers ESRCH. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  expect(child.pid).toBeTypeOf("number");
  return child.pid ?? -1;
}

describe("acquireFolderLock", () => {
  it("writes who holds the folder and releases it", async () => {
    const lock = await acquireFolderLock(root, { command: "watch" });
    const onDisk = JSON.parse(await readFile(folderLockPath(root), "utf8"));
    expect(onDisk).toEqual({ pid: process.pid, hostname: hostname(), command: "watch", startedAt: lock.info.startedAt });
    expect(await readFolderLock(root)).toEqual(onDisk);
    await lock.release();
    await lock.release();
    expect(await readFolderLock(root)).toBeUndefined();
  });

  it("lets exactly one of two concurrent acquires win; the loser names the holder", async () => {
    const results = await Promise.allSettled([acquireFolderLock(root, { command: "watch" }), acquireFolderLock(root, { command: "push" })]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.reason).toMatchObject({ code: "FOLDER_LOCKED" });
    expect(String(lost[0]?.reason.message)).toContain(`pid ${process.pid}`);
    const holder = (await readFolderLock(root))?.command ?? "";
    expect(String(lost[0]?.reason.message)).toContain(`"${holder}"`);
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireFolderLock>>>).value.release();
    const again = await acquireFolderLock(root, { command: "pull" });
    await again.release();
  });

  it("takes over a lock whose process is gone", async () => {
    const pid = await deadPid();
    await writeLock({ pid, hostname: hostname(), command: "watch", startedAt: Date.now() - 1000 });
    expect(isLockHolderAlive({ pid, hostname: hostname(), command: "watch", startedAt: Date.now() })).toBe(false);
    const lock = await acquireFolderLock(root, { command: "pull" });
    expect((await readFolderLock(root))?.pid).toBe(process.pid);
    await lock.release();
  });

  it("takes over a lock taken before this machine booted (the pid may be reused)", async () => {
    const beforeBoot = Date.now() - uptime() * 1000 - 3_600_000;
    await writeLock({ pid: process.pid, hostname: hostname(), command: "watch", startedAt: beforeBoot });
    const lock = await acquireFolderLock(root, { command: "pull" });
    expect((await readFolderLock(root))?.startedAt).toBe(lock.info.startedAt);
    await lock.release();
  });

  it("respects a live holder on another host", async () => {
    await writeLock({ pid: 1, hostname: "elsewhere.example", command: "watch", startedAt: Date.now() });
    await expect(acquireFolderLock(root, { command: "pull" })).rejects.toThrow(/pid 1 on host elsewhere\.example, "watch"/);
  });

  it("takes over a lock file that never got its content", async () => {
    await writeLock({});
    await writeFile(folderLockPath(root), "");
    const lock = await acquireFolderLock(root, { command: "pull" });
    expect((await readFolderLock(root))?.pid).toBe(process.pid);
    await lock.release();
  });

  it("release leaves a lock that is no longer ours alone", async () => {
    const lock = await acquireFolderLock(root, { command: "watch" });
    const other = { pid: 1, hostname: "elsewhere.example", command: "watch", startedAt: 1 };
    await writeFile(folderLockPath(root), JSON.stringify(other));
    await lock.release();
    expect(await readFolderLock(root)).toEqual(other);
    await expect(stat(`${folderLockPath(root)}.takeover`)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
