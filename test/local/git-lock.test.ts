import { execFileSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findGitDir, isGitBusy, waitForGitIdle } from "../../src/local/git-lock.js";
import { makeTempDir } from "../support/temp-dir.js";

let repo: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const tmp = await makeTempDir("git");
  repo = tmp.dir;
  cleanup = tmp.cleanup;
  execFileSync("git", ["init", "-q", repo]);
});
afterEach(async () => cleanup());

describe("findGitDir", () => {
  it("walks up to the enclosing repository", async () => {
    await mkdir(join(repo, "design", "src"), { recursive: true });
    expect(findGitDir(join(repo, "design", "src"))).toBe(join(repo, ".git"));
    expect(findGitDir(repo)).toBe(join(repo, ".git"));
  });

  it("follows a .git file (worktrees, submodules)", async () => {
    const wt = join(repo, "wt");
    await mkdir(join(repo, ".git", "worktrees", "wt"), { recursive: true });
    await mkdir(wt);
    await writeFile(join(wt, ".git"), "gitdir: ../.git/worktrees/wt\n");
    expect(findGitDir(wt)).toBe(join(repo, ".git", "worktrees", "wt"));
  });

  it("is undefined outside a repository", async () => {
    const other = await makeTempDir("nogit");
    try {
      expect(findGitDir(other.dir)).toBeUndefined();
    } finally {
      await other.cleanup();
    }
  });
});

describe("isGitBusy / waitForGitIdle", () => {
  const lock = (): string => join(repo, ".git", "index.lock");

  it("sees index.lock come and go", async () => {
    const gitDir = join(repo, ".git");
    expect(isGitBusy(gitDir)).toBe(false);
    await writeFile(lock(), "");
    expect(isGitBusy(gitDir)).toBe(true);
    await rm(lock());
    expect(isGitBusy(gitDir)).toBe(false);
  });

  it("returns at once when git is idle", async () => {
    expect(await waitForGitIdle(join(repo, ".git"))).toEqual({ waitedMs: 0 });
  });

  it("waits until the lock is removed and names the operation", async () => {
    await writeFile(lock(), "");
    const waiting = waitForGitIdle(join(repo, ".git"), { pollMs: 10 });
    setTimeout(() => void rm(lock()), 120);
    const result = await waiting;
    expect(result.operation).toBe("checkout/commit");
    expect(result.waitedMs).toBeGreaterThanOrEqual(100);
  });

  it.each([
    ["rebase-merge", "rebase", true],
    ["rebase-apply", "rebase", true],
    ["MERGE_HEAD", "merge", false],
  ])("guesses %s -> %s", async (name, operation, isDir) => {
    const marker = join(repo, ".git", name);
    if (isDir) await mkdir(marker);
    else await writeFile(marker, "0000000000000000000000000000000000000000\n");
    await writeFile(lock(), "");
    const waiting = waitForGitIdle(join(repo, ".git"), { pollMs: 10 });
    setTimeout(() => void rm(lock()), 30);
    expect((await waiting).operation).toBe(operation);
  });

  it("rejects when aborted", async () => {
    await writeFile(lock(), "");
    const ac = new AbortController();
    const waiting = waitForGitIdle(join(repo, ".git"), { pollMs: 10, signal: ac.signal });
    setTimeout(() => ac.abort(new Error("shutting down")), 30);
    await expect(waiting).rejects.toThrow("shutting down");
  });
});
