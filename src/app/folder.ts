/**
 * Use cases over one mapped folder, the layer between the commands and the engine:
 * "take the folder's lock, open the design (cleaning up after a killed run), run a cycle, commit
 * the pulled version when `git.commitOnPull` asks for it, release". Commands parse flags, call
 * one of these and render; they never take a lock or open a design themselves.
 */
import { ApiError } from "../api/errors.js";
import { ContextError, hasCode, MpsyncError } from "../core/errors.js";
import { createPullCommitter, pulledPaths } from "../git/pull-committer.js";
import type { Mapping, Runtime } from "../runtime.js";
import { acquireFolderLock, readFolderLock, type FolderLock, type LockInfo } from "../state/lock.js";
import type { CycleProgress, CycleReport, DesignSync } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";

/** The folder's lock when this process got it, else who holds it. */
export type FolderHold = { lock: FolderLock; holder?: undefined } | { lock?: undefined; holder: LockInfo | undefined };

/** Takes the folder lock, or reports the live process that holds it. */
export async function holdFolder(root: string, command: string): Promise<FolderHold> {
  try {
    return { lock: await acquireFolderLock(root, { command }) };
  } catch (err) {
    if (!hasCode(err, "FOLDER_LOCKED")) throw err;
    return { holder: await readFolderLock(root) };
  }
}

/**
 * Runs `work` on the opened design under the folder's lock (FOLDER_LOCKED when another process
 * holds it). `lock: false` opens it read-only, without the lock (a dry run).
 */
export async function withFolder<T>(
  runtime: Runtime,
  mapping: Mapping,
  options: { command: string; lock?: boolean; emit: EventSink },
  work: (sync: DesignSync) => Promise<T>,
): Promise<T> {
  const lock = options.lock === false ? undefined : await acquireFolderLock(mapping.root, { command: options.command });
  return openAndRun(runtime, mapping, lock, options.emit, work);
}

/** withFolder, unless another process (a daemon, which will do the work) holds the folder: then `{ holder }`. */
export async function withFolderIfFree<T>(
  runtime: Runtime,
  mapping: Mapping,
  options: { command: string; emit: EventSink },
  work: (sync: DesignSync) => Promise<T>,
): Promise<{ value: T; holder?: undefined } | { value?: undefined; holder: LockInfo | undefined }> {
  const hold = await holdFolder(mapping.root, options.command);
  if (hold.lock === undefined) return { holder: hold.holder };
  return { value: await openAndRun(runtime, mapping, hold.lock, options.emit, work) };
}

/**
 * The design opened read-only, without the lock, for commands that only look (status, diff,
 * versions, history, publish): a running daemon may own the folder, so callers never save.
 */
export async function openReadOnly(runtime: Runtime, mapping: Mapping): Promise<DesignSync> {
  return runtime.openDesign(mapping, () => undefined);
}

async function openAndRun<T>(
  runtime: Runtime,
  mapping: Mapping,
  lock: FolderLock | undefined,
  emit: EventSink,
  work: (sync: DesignSync) => Promise<T>,
): Promise<T> {
  let editorId: string | undefined;
  try {
    // Opened afresh under the lock: the state may have moved while the caller waited.
    const sync = await runtime.openDesign(mapping, emit, { holdsLock: lock !== undefined });
    editorId = sync.editorId;
    return await work(sync);
  } catch (err) {
    throw namingFolder(err, mapping.label, editorId);
  } finally {
    await lock?.release();
  }
}

/**
 * Says which folder and design an error concerns ("web (design abc123): could not read the
 * design's status: ..."), unless its message names the folder already: a ContextError around
 * it, with its code and hint (exit codes and --json depend on them); the error itself is its
 * `cause`, unchanged.
 */
export function namingFolder(err: unknown, label: string, editorId: string | undefined): unknown {
  if (!(err instanceof MpsyncError) || err.message.startsWith(`${label}:`) || err.message.startsWith(`${label} `)) return err;
  const design = err instanceof ApiError && editorId !== undefined ? ` (design ${editorId})` : "";
  return new ContextError(`${label}${design}`, err);
}

/**
 * A full cycle that only brings changes in (local edits are reconciled, never discarded, and
 * wait for push or watch), unless `send` (`init --force`, whose reconcile the user asked for);
 * then the pulled version is committed when the config asks for it.
 */
export async function pullFolder(
  runtime: Runtime,
  mapping: Mapping,
  sync: DesignSync,
  emit: EventSink,
  options: { send?: boolean; force?: boolean; dryRun?: boolean; progress?: CycleProgress } = {},
): Promise<CycleReport> {
  const report = await sync.fullSync({
    pullOnly: options.send !== true,
    force: options.force === true,
    dryRun: options.dryRun === true,
    ...(options.progress === undefined ? {} : { progress: options.progress }),
  });
  await commitAfterCycle(runtime, mapping, sync.editorId, report, emit, (p) => sync.baseText(p));
  return report;
}

/** Commits the cycle's pulled version when the mapping's config asks for it (one-shot commands). */
export async function commitAfterCycle(
  runtime: Runtime,
  mapping: Mapping,
  editorId: string,
  report: CycleReport | undefined,
  emit: EventSink,
  versionText?: (path: string) => Promise<string | undefined>,
): Promise<void> {
  if (report === undefined) return;
  const { config } = await runtime.config();
  if (!config.git.commitOnPull || pulledPaths(report).length === 0) return;
  const logger = runtime.logger().child({ dir: mapping.dir });
  const hook = createPullCommitter({ enabled: true, root: mapping.root, dir: mapping.dir, client: await runtime.client(), logger, emit });
  await hook?.(report, editorId, versionText);
}
