/** Real temp folders for tests (realpath'd: macOS tmpdir is a symlink, and loadConfig returns resolved paths). */
import { mkdtemp, realpath, rm } from "node:fs/promises";
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
