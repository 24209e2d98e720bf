/**
 * `mpsync resolve`'s use case: one side of a conflict, taken from the copies saved under
 * `.mpsync/conflicts/`, written over the file (the current file backed up first); a running
 * watch sends it, else the next push or sync does.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { MpsyncError } from "../core/errors.js";
import { hasConflictMarkers } from "../core/markers.js";
import { backupLocalFile, writeLocalFile } from "../local/local-fs.js";
import { listConflictedPaths, listConflictSides, recoveryStamp } from "../local/recovery-layout.js";
import type { Mapping, Runtime } from "../runtime.js";
import { isLockHolderAlive, readFolderLock } from "../state/lock.js";
import { openStateStore, type StateStore } from "../state/state-store.js";
import type { ResolvedConflict } from "./json-documents.js";

export type { ResolvedConflict } from "./json-documents.js";

/** Writes the newest saved `side` of `rel`'s conflict over the file. */
export async function resolveConflict(runtime: Runtime, mapping: Mapping, rel: string, side: "ours" | "theirs"): Promise<ResolvedConflict> {
  const store = openStateStore(mapping.root);
  const copy = await newestSide(store, rel, side === "ours" ? "local" : "remote");
  if (copy === undefined) {
    throw new MpsyncError("USAGE", `${mapping.label}: no saved conflict of ${rel} under .mpsync/conflicts/`, {
      hint: `see what mpsync holds of it: mpsync restore ${rel} --dir ${mapping.label} --list`,
    });
  }
  const stamp = recoveryStamp(runtime.clock.now());
  const backedUpTo = await backupLocalFile(mapping.root, rel, store.backupsDir, stamp);
  await writeLocalFile(mapping.root, rel, copy.content);
  return { dir: mapping.dir, path: rel, side, conflictAt: copy.at, backedUpTo };
}

/** The newest saved `side` of `rel`'s conflicts. */
async function newestSide(store: StateStore, rel: string, side: "local" | "remote"): Promise<{ content: Buffer; at: number | undefined } | undefined> {
  for (const copy of await listConflictSides(store.conflictsDir, rel)) {
    const content = copy.side === side ? await readFile(copy.file).catch(() => undefined) : undefined;
    if (content !== undefined) return { content, at: copy.at };
  }
  return undefined;
}

/** Files of the folder that hold conflict markers and have a saved conflict. */
export async function conflictedFiles(mapping: Mapping): Promise<string[]> {
  const store = openStateStore(mapping.root);
  const marked: string[] = [];
  for (const rel of await listConflictedPaths(store.conflictsDir)) {
    const text = await readFile(join(mapping.root, rel), "utf8").catch(() => undefined);
    if (text !== undefined && hasConflictMarkers(text)) marked.push(rel);
  }
  return marked;
}

/** True when a live process (a running watch) holds the folder's lock: it syncs what was written. */
export async function isFolderWatched(mapping: Mapping): Promise<boolean> {
  const lock = await readFolderLock(mapping.root).catch(() => undefined);
  return lock !== undefined && isLockHolderAlive(lock);
}
