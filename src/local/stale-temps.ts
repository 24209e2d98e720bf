/**
 * Temp files a killed write leaves behind (`.<name>.<hex>.mpsync.tmp`, see atomic-write.ts).
 * Never synced (the built-in `*.tmp` rule), but they clutter `git status` and editors: the next
 * process that holds the folder lock removes them. Without the lock a live writer's temp file
 * could be deleted under it, so callers must hold it.
 */
import { link, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { GUARDED_TEMP_SUFFIX } from "./atomic-write.js";
import type { IgnoreMatcher } from "./ignore-rules.js";

/** Removes every stale temp file under `root` (and `.mpsync/base`); resolves their relative paths. */
export async function removeStaleTempFiles(root: string, matcher: IgnoreMatcher): Promise<string[]> {
  const removed: string[] = [];
  await sweep(root, "", matcher, removed);
  await sweep(root, ".mpsync/base", undefined, removed);
  return removed;
}

/**
 * A held name (`.<name>.<tag>.held.mpsync.tmp`, atomic-write.ts replaceHeld/removeHeld) left by
 * a kill in the middle of a checked remove may be the only name of a user's file: it goes back
 * under its name when nothing holds that name (link(2): never over a file made since). A remove
 * it belonged to is decided again by the next cycle.
 */
async function putBackHeld(dir: string, held: string): Promise<void> {
  const name = HELD_NAME.exec(held)?.[1];
  // Longer names were cut in the temp name: their original cannot be told.
  if (name === undefined || name.length >= 160) return;
  await link(join(dir, held), join(dir, name)).catch(() => undefined);
}
const HELD_NAME = /^\.(.+)\.[0-9a-z]+\.held\.mpsync\.tmp$/;

async function sweep(root: string, rel: string, matcher: IgnoreMatcher | undefined, removed: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch {
    return; // a missing or unreadable folder holds nothing we can clean
  }
  for (const entry of entries) {
    const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isFile() && entry.name.endsWith(GUARDED_TEMP_SUFFIX)) {
      await putBackHeld(join(root, rel), entry.name);
      await rm(join(root, child), { force: true });
      removed.push(child);
    } else if (entry.isDirectory() && matcher !== undefined && !matcher.ignores(child, true)) {
      await sweep(root, child, matcher, removed);
    }
  }
}
