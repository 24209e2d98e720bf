/** A folder's `.mpsync/state.json` as another process reads it: for tests of a running daemon. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** A PATCH the service answered, as state.json records it (`settled`: a read past its race window found its text). */
export interface LandedRecord {
  settled?: boolean;
}

/** The answered PATCH of `path` that the folder at `root` records, if any. */
export async function landedOf(root: string, path: string): Promise<LandedRecord | undefined> {
  const state = JSON.parse(await readFile(join(root, ".mpsync", "state.json"), "utf8")) as { landed?: Record<string, LandedRecord> };
  return state.landed?.[path];
}
