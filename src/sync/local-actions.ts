/**
 * The local half of a run: each action of the plan applied to the folder by compare-and-swap
 * (a file changed since it was read is left alone and picked up by the next cycle), with a
 * backup of anything replaced or removed. Pushes are gathered for push-parts.ts; a base
 * moves (run.result.bases) only once its write is done.
 */
import { MARKER_LOCAL } from "../core/markers.js";
import type { ExecutionRun } from "./execution-run.js";
import { resolveConflict } from "./merge.js";
import type { FileAction } from "./model.js";

/** Applies one action of the plan to the folder. */
export async function applyLocalAction(run: ExecutionRun, action: FileAction): Promise<void> {
  const { result } = run;
  switch (action.kind) {
    case "push": {
      const text = run.localTexts.get(action.path);
      if (text !== undefined) run.pushes.push({ path: action.path, text });
      return;
    }
    case "pull": {
      const text = run.remoteTexts.get(action.path);
      if (text === undefined) return;
      if (await writeLocal(run, action.path, action.expectLocal, text, action.overLocalEdit === true)) {
        result.bases.push({ path: action.path, hash: await run.bases.putBase(text) });
        result.pulled.push(action.path);
      }
      return;
    }
    case "remove-local": {
      await run.journaled;
      await run.local.backup(action.path, run.stamp);
      if ((await run.local.removeIfUnchanged(action.path, action.expectLocal)) === "done") {
        result.bases.push({ path: action.path, hash: undefined });
        result.removed.push(action.path);
      } else result.changedMeanwhile.push(action.path);
      return;
    }
    case "record-base": {
      if (action.hash !== undefined) {
        const text = run.remoteTexts.get(action.path) ?? run.localTexts.get(action.path);
        if (text !== undefined) await run.bases.putBase(text);
      }
      result.bases.push({ path: action.path, hash: action.hash });
      return;
    }
    case "conflict":
      await applyConflict(run, action);
      return;
    case "report":
      return;
  }
}

async function applyConflict(run: ExecutionRun, action: Extract<FileAction, { kind: "conflict" }>): Promise<void> {
  const local = run.localTexts.get(action.path);
  const remote = run.remoteTexts.get(action.path);
  // No text for a text file: it changed since the scan; the next cycle sees the new content.
  if (remote === undefined || (local === undefined && action.localBlocked !== "binary")) return;
  const base = action.base === undefined ? undefined : await run.bases.getBase(action.base);
  const resolution = resolveConflict({
    policy: action.policy,
    base,
    local,
    remote,
    remoteLabel: await run.remoteLabel(),
    ...(action.localBlocked === undefined ? {} : { localBlocked: action.localBlocked }),
  });
  const sides = resolution.saveToConflicts;
  // Both sides are kept before the file is written: a save landing on the file first refuses
  // the write, and the service's side (read now, perhaps overwritten there later by a request
  // of ours arriving late) must not live only in this cycle's memory.
  const kept = resolution.write !== undefined && sides.remote === undefined ? { ...sides, remote } : sides;
  if (kept.local !== undefined || kept.remote !== undefined) {
    await run.saveConflict(action.path, kept, run.stamp);
  }
  if (resolution.write !== undefined) {
    // The file holds a local edit, which may still be being written: see ReplaceOptions.localEdit.
    if (!(await writeLocal(run, action.path, action.localHash, resolution.write, action.localHash !== undefined))) return;
  }
  // The remote side is now known to the local file (written over or merged in): it is the
  // new base until the push below confirms the merged/kept-local content.
  run.result.bases.push({ path: action.path, hash: await run.bases.putBase(remote) });
  if (resolution.push !== undefined && action.waitToPush === true) run.result.notSent.push(action.path);
  else if (resolution.push !== undefined) run.pushes.push({ path: action.path, text: resolution.push });
  if (action.policy === "merge" && !resolution.unresolved && resolution.push === undefined && resolution.write !== undefined) {
    // The merge equals the remote side (it already held the local change): a plain pull.
    run.result.pulled.push(action.path);
    return;
  }
  const line = resolution.write === undefined ? undefined : firstMarkerLine(resolution.write);
  run.result.conflicts.push({ path: action.path, unresolved: resolution.unresolved, policy: action.policy, ...(line === undefined ? {} : { line }) });
}

/** 1-based line of the first `<<<<<<< local` marker in `text`, if any. */
function firstMarkerLine(text: string): number | undefined {
  const index = text.split("\n").findIndex((l) => l.startsWith(MARKER_LOCAL));
  return index < 0 ? undefined : index + 1;
}

/**
 * Backs up then replaces a local file if it still has `expect`; false when it changed meanwhile.
 * The new text's temp file is written while the run's journal is; the backup (a copy) is made
 * once the journal is done (a journal that failed, on a full disk, makes no backup folder), and
 * the text takes the name only after both.
 */
async function writeLocal(run: ExecutionRun, rel: string, expect: string | undefined, text: string, localEdit = false): Promise<boolean> {
  const backedUp = expect === undefined ? undefined : Promise.resolve(run.journaled).then(() => run.local.backup(rel, run.stamp));
  const after = backedUp ?? run.journaled;
  // A replace refused at its first check never reaches the gate: a failed journal must not
  // then be an unhandled rejection (it fails the cycle in cycle.ts).
  after?.catch(() => undefined);
  const outcome = await run.local.replaceIfUnchanged(rel, expect, text, { ...(after === undefined ? {} : { after }), ...(localEdit ? { localEdit } : {}) });
  // Refused before its gate: the backup still ends within the run (a text replaced awaited it).
  await backedUp?.catch(() => undefined);
  if (outcome === "done") return true;
  (outcome === "blocked" ? run.result.blocked : run.result.changedMeanwhile).push(rel);
  return false;
}
