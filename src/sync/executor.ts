/**
 * Applies a SyncPlan. Local side: compare-and-swap (a file changed since it was read is left
 * alone and picked up by the next cycle) with a backup of anything replaced or removed. Remote
 * side: the pushes of the plan go out as one PATCH, or in parts of PUSH_PART_BYTES when larger
 * (a 413 halves a part). A base moves only after the write it describes is confirmed (local
 * CAS done, or PATCH answered 2xx): the executor returns those moves, in order, and the
 * BaseLedger records them (base-ledger.ts). It never writes state.
 */
import { hasCode } from "../core/errors.js";
import { mapBounded } from "../local/bounded.js";
import type { FileWrite } from "../api/schemas.js";
import { MARKER_LOCAL } from "../core/markers.js";
import { resolveConflict } from "./merge.js";
import type { FileAction, SyncPlan } from "./model.js";
import type { BaseMove, BaseTexts, LocalTree } from "./ports.js";


/** What the executor needs from the outside world. */
export interface ExecuteDeps {
  local: LocalTree;
  bases: BaseTexts;
  /** PATCH the active artifact; resolves when the service confirmed the write. */
  writeRemote(files: FileWrite[]): Promise<void>;
  saveConflict(rel: string, sides: { local?: string; remote?: string; base?: string }, stamp: string): Promise<void>;
  /** Label for the remote side of conflict markers, e.g. "remote v7". */
  remoteLabel(): Promise<string>;
  /** Names of this folder's backup/conflict sub-folder for this run. */
  stamp: string;
  hashOf(text: string): string;
  /** Bytes of file text per PATCH. @default PUSH_PART_BYTES */
  pushPartBytes?: number;
  /** Told after each action that changes something (not reports), with the total: a progress bar. */
  progress?(done: number, total: number): void;
}

/** Inputs beside the plan: the texts read for it. */
export interface ExecuteInput {
  plan: SyncPlan;
  localTexts: ReadonlyMap<string, string>;
  remoteTexts: ReadonlyMap<string, string>;
  /** Remote names of the active artifact (to tell a new file from a replaced one). */
  remoteNames: ReadonlySet<string>;
  /** The content hash of `path` the service refused (not sent again until it changes; FolderStatus). */
  refused(path: string): string | undefined;
  /**
   * False for `mpsync pull`: nothing is sent. A merge is still written locally; its base is the
   * remote side, so the next push (or watch) sends it. @default true
   */
  send?: boolean;
}

/** What happened. */
export interface ExecuteResult {
  /** The base moves this run confirmed, in the order they happened (a later one wins). */
  bases: BaseMove[];
  pushed: string[];
  pulled: string[];
  removed: string[];
  /** `line`: 1-based line of the first conflict marker written (unresolved merges only). */
  conflicts: { path: string; unresolved: boolean; policy: string; line?: number }[];
  /** Left alone because the local file changed while the cycle ran. */
  changedMeanwhile: string[];
  /** Files the service refused, reported once per content. */
  refused: RefusedPush[];
  /** path -> content hash of each file refused this run (FolderStatus.noteContent records it). */
  refusedContent: Map<string, string>;
  /** Remote files that could not be written: a local folder or symlink holds the path. */
  blocked: string[];
  /** The PATCH failed (kept pending; the base did not move for those files). */
  pushError: unknown;
  /** Merged locally but not sent (send: false): waiting for the next push. */
  notSent: string[];
  /** Local paths whose write failed (permissions, a full disk, a folder in the way): retried by a later cycle. */
  failed: { path: string; code: string; message: string }[];
}

/** A file the service would not take: a new name refused (400), or too large alone (413). */
export interface RefusedPush {
  path: string;
  reason: "new-name" | "too-large";
}

/** File-system failures that concern one path; anything else fails the whole cycle. */
const PATH_FAILURES = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "ENOTDIR", "EISDIR", "ENAMETOOLONG", "EEXIST", "ENOTEMPTY", "EBUSY"]);

/** Local file actions applied at once. */
export const LOCAL_ACTION_CONCURRENCY = 16;

/**
 * Bytes of file text per PATCH. A push of many files (a first push of a whole folder) goes out
 * in parts of about this size, each confirmed (its bases moved) on its own: one request's
 * memory stays bounded, a failure costs one part, and it is far below the 16 MB the service was
 * seen to accept (SERVICE-FACTS.md). A 413 halves a part (pushHalves).
 */
export const PUSH_PART_BYTES = 4 * 1024 * 1024;

interface PendingPush {
  path: string;
  text: string;
}

/** Executes `input.plan` (which must not be halted). */
export async function executePlan(input: ExecuteInput, deps: ExecuteDeps): Promise<ExecuteResult> {
  const result: ExecuteResult = {
    bases: [],
    pushed: [],
    pulled: [],
    removed: [],
    conflicts: [],
    changedMeanwhile: [],
    refused: [],
    refusedContent: new Map(),
    blocked: [],
    pushError: undefined,
    notSent: [],
    failed: [],
  };
  const pushes: PendingPush[] = [];
  // Each path has one action and its own file, so local work runs in parallel: a pull of
  // thousands of files is bound by file-system latency, not CPU (BENCHMARKS.md).
  // One unwritable path must not block the rest of the cycle, pushes included (issue 12).
  const total = input.plan.actions.filter((a) => a.kind !== "report").length;
  let done = 0;
  await mapBounded(input.plan.actions, LOCAL_ACTION_CONCURRENCY, async (action) => {
    await applyLocalAction(action, input, deps, result, pushes).catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException | undefined)?.code;
      if (code === undefined || !PATH_FAILURES.has(code)) throw err;
      result.failed.push({ path: action.path, code, message: err instanceof Error ? err.message : String(err) });
    });
    if (action.kind !== "report") deps.progress?.(++done, total);
  });
  pushes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (pushes.length > 0 && input.send === false) result.notSent.push(...pushes.map((p) => p.path));
  else if (pushes.length > 0) await pushAll(pushes, input, deps, result);
  for (const list of [result.pulled, result.removed, result.changedMeanwhile, result.pushed]) list.sort();
  result.conflicts.sort((a, b) => (a.path < b.path ? -1 : 1));
  return result;
}

async function applyLocalAction(
  action: FileAction,
  input: ExecuteInput,
  deps: ExecuteDeps,
  result: ExecuteResult,
  pushes: PendingPush[],
): Promise<void> {
  switch (action.kind) {
    case "push": {
      const text = input.localTexts.get(action.path);
      if (text !== undefined) pushes.push({ path: action.path, text });
      return;
    }
    case "pull": {
      const text = input.remoteTexts.get(action.path);
      if (text === undefined) return;
      if (await writeLocal(action.path, action.expectLocal, text, deps, result)) {
        result.bases.push({ path: action.path, hash: await deps.bases.putBase(text) });
        result.pulled.push(action.path);
      }
      return;
    }
    case "remove-local": {
      await deps.local.backup(action.path, deps.stamp);
      if ((await deps.local.removeIfUnchanged(action.path, action.expectLocal)) === "done") {
        result.bases.push({ path: action.path, hash: undefined });
        result.removed.push(action.path);
      } else result.changedMeanwhile.push(action.path);
      return;
    }
    case "record-base": {
      if (action.hash !== undefined) {
        const text = input.remoteTexts.get(action.path) ?? input.localTexts.get(action.path);
        if (text !== undefined) await deps.bases.putBase(text);
      }
      result.bases.push({ path: action.path, hash: action.hash });
      return;
    }
    case "conflict":
      await applyConflict(action, input, deps, result, pushes);
      return;
    case "report":
      return;
  }
}

async function applyConflict(
  action: Extract<FileAction, { kind: "conflict" }>,
  input: ExecuteInput,
  deps: ExecuteDeps,
  result: ExecuteResult,
  pushes: PendingPush[],
): Promise<void> {
  const local = input.localTexts.get(action.path);
  const remote = input.remoteTexts.get(action.path);
  // No text for a text file: it changed since the scan; the next cycle sees the new content.
  if (remote === undefined || (local === undefined && action.localBlocked !== "binary")) return;
  const base = action.base === undefined ? undefined : await deps.bases.getBase(action.base);
  const resolution = resolveConflict({
    policy: action.policy,
    base,
    local,
    remote,
    remoteLabel: await deps.remoteLabel(),
    ...(action.localBlocked === undefined ? {} : { localBlocked: action.localBlocked }),
  });
  const sides = resolution.saveToConflicts;
  if (sides.local !== undefined || sides.remote !== undefined) {
    await deps.saveConflict(action.path, sides, deps.stamp);
  }
  if (resolution.write !== undefined) {
    if (!(await writeLocal(action.path, action.localHash, resolution.write, deps, result))) return;
  }
  // The remote side is now known to the local file (written over or merged in): it is the
  // new base until the push below confirms the merged/kept-local content.
  result.bases.push({ path: action.path, hash: await deps.bases.putBase(remote) });
  if (resolution.push !== undefined) pushes.push({ path: action.path, text: resolution.push });
  if (action.policy === "merge" && !resolution.unresolved && resolution.push === undefined && resolution.write !== undefined) {
    // The merge equals the remote side (it already held the local change): a plain pull.
    result.pulled.push(action.path);
    return;
  }
  const line = resolution.write === undefined ? undefined : firstMarkerLine(resolution.write);
  result.conflicts.push({ path: action.path, unresolved: resolution.unresolved, policy: action.policy, ...(line === undefined ? {} : { line }) });
}

/** 1-based line of the first `<<<<<<< local` marker in `text`, if any. */
function firstMarkerLine(text: string): number | undefined {
  const index = text.split("\n").findIndex((l) => l.startsWith(MARKER_LOCAL));
  return index < 0 ? undefined : index + 1;
}

/** Backs up then replaces a local file if it still has `expect`; false when it changed meanwhile. */
async function writeLocal(
  rel: string,
  expect: string | undefined,
  text: string,
  deps: ExecuteDeps,
  result: ExecuteResult,
): Promise<boolean> {
  if (expect !== undefined) await deps.local.backup(rel, deps.stamp);
  const outcome = await deps.local.replaceIfUnchanged(rel, expect, text);
  if (outcome === "done") return true;
  (outcome === "blocked" ? result.blocked : result.changedMeanwhile).push(rel);
  return false;
}

async function pushAll(
  pushes: PendingPush[],
  input: ExecuteInput,
  deps: ExecuteDeps,
  result: ExecuteResult,
): Promise<void> {
  // Hashed only for a path with refused content (a push of thousands of files hashes nothing here).
  let rest = pushes.filter((p) => {
    const refused = input.refused(p.path);
    return refused === undefined || refused !== deps.hashOf(p.text);
  });
  // Lowered by a 413 (pushHalves): the parts after it are cut to the size that fitted.
  const limit = { bytes: deps.pushPartBytes ?? PUSH_PART_BYTES };
  while (rest.length > 0) {
    const count = partLength(rest, limit.bytes);
    if (!(await pushPart(rest.slice(0, count), input, deps, result, limit))) return;
    rest = rest.slice(count);
  }
}

/** How many of `pushes`, in order, make one part of at most `limit` bytes of text (at least one). */
function partLength(pushes: readonly PendingPush[], limit: number): number {
  let bytes = 0;
  for (const [i, p] of pushes.entries()) {
    bytes += textBytes(p);
    if (i > 0 && bytes > limit) return i;
  }
  return pushes.length;
}

function textBytes(p: PendingPush): number {
  return Buffer.byteLength(p.text);
}

/**
 * One PATCH. False when it failed (result.pushError is set; the files of this part and of the
 * parts after it stay pending and go out with the next cycle).
 */
async function pushPart(part: PendingPush[], input: ExecuteInput, deps: ExecuteDeps, result: ExecuteResult, limit: { bytes: number }): Promise<boolean> {
  try {
    await deps.writeRemote(part.map((p) => ({ fileName: p.path, code: p.text })));
    await confirmPushed(part, input, deps, result);
    return true;
  } catch (err) {
    if (hasCode(err, "TOO_LARGE")) return pushHalves(part, input, deps, result, limit);
    const newFiles = part.filter((p) => !input.remoteNames.has(p.path));
    if (!hasCode(err, "BAD_REQUEST") || newFiles.length === 0) {
      result.pushError = err;
      return false;
    }
    return pushSeparately(part, newFiles, input, deps, result);
  }
}

/**
 * The service found the body too large (413; its limit is not documented): each half goes
 * out on its own, so a part shrinks until it fits, and the parts after it are cut no larger
 * (`limit`). A single file it refuses is reported once per content, like a refused new name.
 */
async function pushHalves(part: PendingPush[], input: ExecuteInput, deps: ExecuteDeps, result: ExecuteResult, limit: { bytes: number }): Promise<boolean> {
  const [only] = part;
  if (part.length === 1 && only !== undefined) {
    refuse(only, "too-large", input, deps, result);
    return true;
  }
  const middle = Math.ceil(part.length / 2);
  const halves = [part.slice(0, middle), part.slice(middle)];
  limit.bytes = Math.min(limit.bytes, Math.max(...halves.map((h) => h.reduce((n, p) => n + textBytes(p), 0))));
  return (await pushPart(halves[0]!, input, deps, result, limit)) && pushPart(halves[1]!, input, deps, result, limit);
}

/**
 * The service refused a batch holding new names (it may not create files). Send the known
 * files together, then each new file alone, so one refused name does not block the rest.
 */
async function pushSeparately(
  all: PendingPush[],
  newFiles: PendingPush[],
  input: ExecuteInput,
  deps: ExecuteDeps,
  result: ExecuteResult,
): Promise<boolean> {
  const known = all.filter((p) => input.remoteNames.has(p.path));
  try {
    if (known.length > 0) {
      await deps.writeRemote(known.map((p) => ({ fileName: p.path, code: p.text })));
      await confirmPushed(known, input, deps, result);
    }
  } catch (err) {
    result.pushError = err;
    return false;
  }
  for (const file of newFiles) {
    try {
      await deps.writeRemote([{ fileName: file.path, code: file.text }]);
      await confirmPushed([file], input, deps, result);
    } catch (err) {
      if (!hasCode(err, "BAD_REQUEST")) {
        result.pushError = err;
        return false;
      }
      refuse(file, "new-name", input, deps, result);
    }
  }
  return true;
}

/** Records a file the service refused: not sent again until its content changes. */
function refuse(file: PendingPush, reason: RefusedPush["reason"], input: ExecuteInput, deps: ExecuteDeps, result: ExecuteResult): void {
  result.refusedContent.set(file.path, deps.hashOf(file.text));
  result.refused.push({ path: file.path, reason });
}

async function confirmPushed(
  pushed: PendingPush[],
  input: ExecuteInput,
  deps: ExecuteDeps,
  result: ExecuteResult,
): Promise<void> {
  for (const p of pushed) {
    result.bases.push({ path: p.path, hash: await deps.bases.putBase(p.text) });
    result.pushed.push(p.path);
  }
}
