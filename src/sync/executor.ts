/**
 * Applies a SyncPlan. Local side first (local-actions.ts: compare-and-swap, with a backup of
 * anything replaced or removed), then the remote side (push-parts.ts: the plan's pushes as one
 * PATCH, or in parts of PUSH_PART_BYTES when larger). A base moves only after the write it
 * describes is confirmed (local CAS done, or PATCH answered 2xx): the executor returns those
 * moves, in order, and the BaseLedger records them (base-ledger.ts). It never writes state.
 */
import { errnoCode } from "../core/errors.js";
import { mapBounded } from "../local/bounded.js";
import { emptyExecuteResult, type ExecuteDeps, type ExecuteInput, type ExecuteResult, type ExecutionRun } from "./execution-run.js";
import { applyLocalAction } from "./local-actions.js";
import { pushAll, PUSH_PART_BYTES } from "./push-parts.js";

export type { ExecuteDeps, ExecuteInput, ExecuteResult, RefusedPush } from "./execution-run.js";
export { PUSH_PART_BYTES } from "./push-parts.js";

/** File-system failures that concern one path; anything else fails the whole cycle. */
const PATH_FAILURES = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "ENOTDIR", "EISDIR", "ENAMETOOLONG", "EEXIST", "ENOTEMPTY", "EBUSY"]);

/** Local file actions applied at once. */
export const LOCAL_ACTION_CONCURRENCY = 16;

/** Executes `input.plan` (which must not be halted). */
export async function executePlan(input: ExecuteInput, deps: ExecuteDeps): Promise<ExecuteResult> {
  const result = emptyExecuteResult();
  const run: ExecutionRun = { ...input, ...deps, result, pushes: [], partBytes: deps.pushPartBytes ?? PUSH_PART_BYTES, patches: 0 };
  // Each path has one action and its own file, so local work runs in parallel: a pull of
  // thousands of files is bound by file-system latency, not CPU (BENCHMARKS.md).
  // One unwritable path must not block the rest of the cycle, pushes included.
  const total = input.plan.actions.filter((a) => a.kind !== "report").length;
  let done = 0;
  await mapBounded(spreadByFolder(input.plan.actions), LOCAL_ACTION_CONCURRENCY, async (action) => {
    await applyLocalAction(run, action).catch((err: unknown) => {
      const code = errnoCode(err);
      if (code === undefined || !PATH_FAILURES.has(code)) throw err;
      result.failed.push({ path: action.path, code, message: err instanceof Error ? err.message : String(err) });
    });
    if (action.kind !== "report") deps.progress?.(++done, total);
  });
  run.pushes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (run.pushes.length > 0) await pushAll(run);
  for (const list of [result.pulled, result.removed, result.changedMeanwhile, result.pushed, result.remoteMoved, result.notSent]) list.sort();
  result.conflicts.sort((a, b) => (a.path < b.path ? -1 : 1));
  return result;
}

/**
 * `actions` reordered so that neighbours sit in different folders: one action of each folder in
 * turn (folders in order of first appearance, each folder's actions in their order). Creates in
 * one folder wait for each other on the folder's lock in the kernel, so a pull in plan order
 * (sorted: every write at once in one folder) is slower than a spread one (BENCHMARKS.md).
 */
export function spreadByFolder<T extends { path: string }>(actions: readonly T[]): T[] {
  const folders = new Map<string, T[]>();
  for (const a of actions) {
    const folder = a.path.slice(0, a.path.lastIndexOf("/") + 1);
    const list = folders.get(folder);
    if (list === undefined) folders.set(folder, [a]);
    else list.push(a);
  }
  if (folders.size < 2) return [...actions];
  const out: T[] = [];
  let live = [...folders.values()];
  for (let round = 0; live.length > 0; round++) {
    for (const list of live) out.push(list[round]!);
    // Exhausted folders leave, so the work stays linear however uneven the folders are.
    live = live.filter((list) => list.length > round + 1);
  }
  return out;
}
