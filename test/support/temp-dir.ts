/** Real temp folders for tests (realpath'd: macOS tmpdir is a symlink, and loadConfig returns resolved paths). */
import { mkdtemp, realpath, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

/** A fresh real temp folder per test, removed afterwards. */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    // realpath: macOS tmpdir is a symlink, and loadConfig returns resolved paths.
    const dir = await realpath(await mkdtemp(join(tmpdir(), "mpsync-test-")));
    made.push(dir);
    return dir;
  };
}

/** One fresh temp folder and its cleanup (for suites that manage the lifetime themselves). */
export async function makeTempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), `mpsync-${prefix}-`)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Removes `dir` in one step as a watcher sees it: renamed aside, then deleted. `rm -rf` in place
 * takes as long as its retries (a daemon writing `.mpsync/` meanwhile), and a cycle or lock check
 * inside that window sees the folder emptied, or its lock gone, instead of the folder missing.
 */
export async function removeAtOnce(dir: string): Promise<void> {
  const aside = `${dir}.removed`;
  await rename(dir, aside);
  await rm(aside, { recursive: true, force: true, maxRetries: 10 });
}
