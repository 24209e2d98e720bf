/**
 * Git awareness: while git holds `index.lock` (checkout, commit, rebase, merge) the work tree is
 * half-updated, so pushes wait until the lock is gone and then send the end result as one batch.
 * Synchronous file checks: they are a handful of stat calls on rare occasions.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createSystemClock, type Clock } from "../core/clock.js";

/** Git's index lock, relative to the git dir. */
export const GIT_INDEX_LOCK = "index.lock";

/**
 * The git dir of the repository enclosing `startDir`: `.git` as a folder, or the target of a
 * `.git` file (`gitdir: <path>`, used by worktrees and submodules). Undefined outside a repo.
 */
export function findGitDir(startDir: string): string | undefined {
  for (let dir = resolve(startDir); ; dir = dirname(dir)) {
    const candidate = join(dir, ".git");
    const found = gitDirAt(candidate, dir);
    if (found !== undefined) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

function gitDirAt(candidate: string, dir: string): string | undefined {
  let isDir: boolean;
  try {
    isDir = statSync(candidate).isDirectory();
  } catch {
    return undefined;
  }
  if (isDir) return candidate;
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(candidate, "utf8"));
    return match?.[1] === undefined ? undefined : resolve(dir, match[1]);
  } catch {
    return undefined;
  }
}

/** True while git holds the index lock of `gitDir`. */
export function isGitBusy(gitDir: string): boolean {
  return existsSync(join(gitDir, GIT_INDEX_LOCK));
}

/** A best guess at what git is doing, from the state files it leaves in the git dir. */
export function guessGitOperation(gitDir: string): string {
  if (existsSync(join(gitDir, "rebase-merge")) || existsSync(join(gitDir, "rebase-apply"))) return "rebase";
  if (existsSync(join(gitDir, "MERGE_HEAD"))) return "merge";
  if (existsSync(join(gitDir, "CHERRY_PICK_HEAD"))) return "cherry-pick";
  if (existsSync(join(gitDir, "REVERT_HEAD"))) return "revert";
  return "checkout/commit";
}

/** Options of waitForGitIdle. */
export interface WaitForGitIdleOptions {
  signal?: AbortSignal;
  /** @default 100 */
  pollMs?: number;
  clock?: Clock;
}

/**
 * Resolves once `index.lock` is gone: at once (waitedMs 0, no operation) when git is idle,
 * otherwise after polling, with the operation that held it. Rejects when `signal` aborts.
 */
export async function waitForGitIdle(gitDir: string, options: WaitForGitIdleOptions = {}): Promise<{ waitedMs: number; operation?: string }> {
  if (!isGitBusy(gitDir)) return { waitedMs: 0 };
  const clock = options.clock ?? createSystemClock();
  const started = clock.monotonic();
  // Guessed at first sight: a rebase's state folder is removed in the same breath as its last
  // index.lock, so a guess taken at the end would often miss it.
  let operation = guessGitOperation(gitDir);
  while (isGitBusy(gitDir)) {
    options.signal?.throwIfAborted();
    await clock.sleep(options.pollMs ?? 100, options.signal);
    if (operation === "checkout/commit") operation = guessGitOperation(gitDir);
  }
  return { waitedMs: clock.monotonic() - started, operation };
}
