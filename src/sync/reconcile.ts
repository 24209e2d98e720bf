/**
 * The sync decision: one pure function of (base, local, remote, policy) per path, plus the
 * circuit breakers over the whole design (README, "How sync works"). Scanning and applying live
 * elsewhere; the executor re-checks `expectLocal` before touching a file.
 */
import type { ConflictPolicy, FileAction, FileTriple, HaltReason, LocalBlock, LocalFile, ReconcileInput, SyncMode, SyncPlan } from "./model.js";

/** Decides what to do for one path. Returns zero, one or two actions (a report may join a conflict). */
export function reconcileFile(file: FileTriple, policy: ConflictPolicy, mode: SyncMode = "two-way"): FileAction[] {
  const actions = decideFile(file, policy);
  return mode === "two-way" ? actions : actions.map(sendNothing);
}

/** A pull-only cycle's form of an action: a push waits to be pushed, a merge is written but not sent. */
function sendNothing(action: FileAction): FileAction {
  if (action.kind === "push") return { kind: "report", path: action.path, reason: "waiting-to-push" };
  return action.kind === "conflict" ? { ...action, waitToPush: true } : action;
}

function decideFile(file: FileTriple, policy: ConflictPolicy): FileAction[] {
  const { path, local, remote } = file;
  if (local === undefined) return reconcileLocalAbsent(file);
  const blocked = localBlock(local);
  const localHash = local.hash;
  if (remote !== undefined && remote.hash === localHash) {
    // Both sides hold the same content: only the base may need to catch up.
    return file.base === localHash ? [] : [{ kind: "record-base", path, hash: localHash }];
  }
  if (remote === undefined) {
    if (file.base === localHash) return [{ kind: "remove-local", path, expectLocal: localHash }];
    // No base: a new local file. Base set: modified locally, dropped remotely; modify wins.
    const reason = file.base === undefined ? "local-new" : "modify-beats-delete";
    return blocked === undefined ? [{ kind: "push", path, expectLocal: localHash, reason }] : [blockedReport(path, blocked)];
  }
  const remoteHash = remote.hash;
  if (file.base !== undefined && file.base === localHash) {
    const pull: FileAction = { kind: "pull", path, remoteHash, expectLocal: localHash, reason: "remote-changed" };
    return [file.localEdited === true ? { ...pull, overLocalEdit: true } : pull];
  }
  if (file.base !== undefined && file.base === remoteHash) {
    return blocked === undefined ? [{ kind: "push", path, expectLocal: localHash, reason: "local-changed" }] : [blockedReport(path, blocked)];
  }
  // Both changed differently, or no base at all (a lost state never deletes: it conflicts).
  const conflict: FileAction = { kind: "conflict", path, policy, base: file.base, localHash, remoteHash };
  if (blocked === undefined) return [conflict];
  return [blockedReport(path, blocked), { ...conflict, localBlocked: blocked }];
}

function reconcileLocalAbsent(file: FileTriple): FileAction[] {
  const { path, base, remote } = file;
  if (remote === undefined) return base === undefined ? [] : [{ kind: "record-base", path, hash: undefined }];
  if (base === undefined) return [{ kind: "pull", path, remoteHash: remote.hash, expectLocal: undefined, reason: "remote-new" }];
  // The API has no delete: a local deletion stays local until the remote content moves on.
  if (remote.hash === base) return [{ kind: "report", path, reason: "deleted-locally" }];
  return [{ kind: "pull", path, remoteHash: remote.hash, expectLocal: undefined, reason: "modify-beats-delete" }];
}

function localBlock(local: LocalFile): LocalBlock | undefined {
  if (local.binary) return "binary";
  return local.hasMarkers ? "markers" : undefined;
}

function blockedReport(path: string, blocked: LocalBlock): FileAction {
  return { kind: "report", path, reason: blocked === "binary" ? "binary-not-pushed" : "unresolved-markers" };
}

/** Reconciles a whole design: every path's actions (sorted by path) and the breaker verdict. */
export function reconcile(input: ReconcileInput): SyncPlan {
  const files = [...input.files].sort((x, y) => compareStrings(x.path, y.path));
  const actions = files.flatMap((file) => reconcileFile(file, input.policy, input.mode));
  const tripped = checkBreakers(input, actions);
  if (!input.force) return { actions, halt: tripped };
  // `pull --force` on a vanished or emptied folder is the way back: every file the service
  // still holds unchanged is written again, instead of staying "deleted locally" forever.
  // Emptied counts what the plan leaves on disk (files it removes do not count), so the
  // restore happens in the same pass that empties the folder and the next pass is quiet.
  const removing = new Set(actions.filter((a) => a.kind === "remove-local").map((a) => a.path));
  const survivors = countWhere(files, (f) => f.local !== undefined && !removing.has(f.path));
  const emptied =
    tripped?.kind === "folder-emptied" || tripped?.kind === "folder-missing" || (survivors === 0 && countWhere(files, (f) => f.base !== undefined) > 0);
  if (input.restoreDeleted === true && emptied) {
    const byPath = new Map(files.map((f) => [f.path, f]));
    const restored = actions.map((a): FileAction => {
      const remote = a.kind === "report" && a.reason === "deleted-locally" ? byPath.get(a.path)?.remote : undefined;
      return remote === undefined ? a : { kind: "pull", path: a.path, remoteHash: remote.hash, expectLocal: undefined, reason: "remote-new" };
    });
    return { actions: restored, halt: undefined };
  }
  return { actions, halt: undefined };
}

/** The first circuit breaker that trips, most fundamental cause first. */
export function checkBreakers(input: ReconcileInput, actions: readonly FileAction[]): HaltReason | undefined {
  if (!input.folderExists) return { kind: "folder-missing" };
  const counted = {
    local: countWhere(input.files, (f) => f.local !== undefined),
    base: countWhere(input.files, (f) => f.base !== undefined),
    remote: countWhere(input.files, (f) => f.remote !== undefined),
  };
  const baseFiles = input.baseFileCount ?? counted.base;
  // A push-time cycle sees a few paths only: zero among them says nothing about the whole.
  const localTotal = input.localFileCount ?? (input.fullRemote ? counted.local : undefined);
  const remoteTotal = input.remoteFileCount ?? (input.fullRemote ? counted.remote : undefined);
  if (localTotal === 0 && baseFiles > 0) return { kind: "folder-emptied", baseFiles };
  const localFiles = localTotal ?? counted.local;
  if (remoteTotal === 0 && (localFiles > 0 || baseFiles > 0)) return { kind: "remote-empty" };
  // Without a total, the subset is the denominator: it can only over-estimate the share.
  const removing = countWhere(actions, (a) => a.kind === "remove-local");
  if (removing * 2 > localFiles) return { kind: "mass-delete", removing, localFiles };
  return undefined;
}

function countWhere<T>(items: readonly T[], test: (item: T) => boolean): number {
  let n = 0;
  for (const item of items) if (test(item)) n += 1;
  return n;
}

// Code-unit order: stable across locales, unlike localeCompare.
function compareStrings(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
