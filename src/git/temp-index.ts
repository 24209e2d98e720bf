/**
 * A throw-away index (GIT_INDEX_FILE) for building trees: the user's index, staged work and
 * work tree are never touched by what happens inside.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Runs `body` with env pointing git at a fresh, empty index file; removes it afterwards. */
export async function withTempIndex<T>(body: (env: { GIT_INDEX_FILE: string }) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "mpsync-index-"));
  try {
    return await body({ GIT_INDEX_FILE: join(dir, "index") });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
