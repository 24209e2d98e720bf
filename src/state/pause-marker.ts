/**
 * A folder held by `mpsync pause`: `.mpsync/paused.json`. It outlives the daemon, so a `watch`
 * started later keeps the folder paused, and `status` (another process) shows it.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { writeJsonAtomically } from "../local/atomic-write.js";
import { assertStateDirSafe, STATE_DIR_NAME } from "./state-store.js";

const pauseSchema = z.object({ at: z.number(), by: z.string() });

/** When and by which command a folder was paused. */
export type PauseInfo = z.infer<typeof pauseSchema>;

function markerPath(root: string): string {
  return join(root, STATE_DIR_NAME, "paused.json");
}

/** The folder's pause, or undefined when it syncs (a malformed marker counts as paused: the user asked). */
export async function readPause(root: string): Promise<PauseInfo | undefined> {
  const raw = await readFile(markerPath(root), "utf8").catch(() => undefined);
  if (raw === undefined) return undefined;
  try {
    return pauseSchema.parse(JSON.parse(raw));
  } catch {
    return { at: 0, by: "mpsync pause" };
  }
}

/** Marks the folder paused (idempotent: an existing pause keeps its time). */
export async function writePause(root: string, info: PauseInfo): Promise<PauseInfo> {
  const existing = await readPause(root);
  if (existing !== undefined) return existing;
  await assertStateDirSafe(join(root, STATE_DIR_NAME));
  await writeJsonAtomically(markerPath(root), info);
  return info;
}

/** Removes the pause; true when there was one. */
export async function clearPause(root: string): Promise<boolean> {
  const existing = await readPause(root);
  await rm(markerPath(root), { force: true });
  return existing !== undefined;
}
