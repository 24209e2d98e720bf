/**
 * The one-shot sync commands' use cases: `pull` and `push` of one folder (handed to the running
 * daemon for `pull --force` when it holds the folder), `sync` without a daemon, and `pause` /
 * `resume` (the marker in `.mpsync/`, and the running daemon told). What runs shows through
 * the caller's view; nothing here prints.
 */
import { hasCode, MpsyncError } from "../core/errors.js";
import { sendControl, type ControlReply } from "../daemon/control-channel.js";
import { pruneFolderBackups } from "../local/backup-retention.js";
import { findIgnoredSecrets } from "../local/secret-scan.js";
import type { Mapping, Runtime } from "../runtime.js";
import { clearPause, readPause, writePause } from "../state/pause-marker.js";
import { summarizeCycle, type CycleSummary } from "../sync/cycle-summary.js";
import type { OneShotSummary } from "./json-documents.js";
import type { CycleReport, DesignSync } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import { waitUntilIdle, type IdleWatch } from "./design-status.js";
import { commitAfterCycle, withFolder } from "./folder.js";
import type { PullProgress, PullView } from "./folder-pull.js";

/** What a one-shot cycle shows while it runs (the CLI: a bar, a spinner, a line). */
export interface OneShotView {
  /** Opened when a pull starts; stopped when it ends. */
  pull(): PullView;
  /** A push of `count` changed files starts (not in a dry run); resolves to its stop. */
  pushing(count: number): () => void;
  /** A push waiting for a generation to end. */
  idle: IdleWatch;
  /** `pull --force` went to the running daemon, which said `message`. */
  handedOver(label: string, message: string): void;
}

/** One folder's `pull` or `push`. */
export interface OneShotRequest {
  kind: "pull" | "push";
  dryRun: boolean;
  force: boolean;
  emit: EventSink;
  progress: PullProgress;
  view: OneShotView;
}

/** One folder's outcome (the `--json` shape of a design). */
export type { OneShotSummary } from "./json-documents.js";

/** Pulls or pushes one mapped folder under its lock; `pull --force` goes to the daemon holding it. */
export async function syncOnce(runtime: Runtime, mapping: Mapping, request: OneShotRequest): Promise<OneShotSummary> {
  // `pull --force`, the advice of a halted folder, must work while `watch` runs: the daemon
  // takes the request and runs a forced full cycle. Asked first: when the mapped folder was
  // removed, its lock went with it, and taking the lock here would leave the daemon none.
  const handOver = request.kind === "pull" && request.force && !request.dryRun;
  if (handOver) {
    const reply = await sendControl(mapping.root, { op: "sync", force: true });
    if (reply !== undefined) return handedOver(mapping, request, reply);
  }
  try {
    return await syncLocked(runtime, mapping, request);
  } catch (err) {
    // A daemon that took the folder between the question and the lock.
    if (!(handOver && hasCode(err, "FOLDER_LOCKED"))) throw err;
    const reply = await sendControl(mapping.root, { op: "sync", force: true });
    if (reply === undefined) throw err;
    return handedOver(mapping, request, reply);
  }
}

function handedOver(mapping: Mapping, request: OneShotRequest, reply: ControlReply): OneShotSummary {
  if (reply.summary === undefined) throw new MpsyncError("FOLDER_LOCKED", `${mapping.label}: the running daemon could not run pull --force: ${reply.message}`);
  request.view.handedOver(mapping.label, reply.message);
  return { ...(reply.summary as unknown as CycleSummary), dir: mapping.dir, editorId: String(reply.summary["editorId"] ?? "") };
}

async function syncLocked(runtime: Runtime, mapping: Mapping, request: OneShotRequest): Promise<OneShotSummary> {
  const { kind, dryRun, emit } = request;
  // A dry run changes nothing, so it may look while the daemon holds the folder.
  return withFolder(runtime, mapping, { command: `mpsync ${kind}`, lock: !dryRun, emit }, async (sync) => {
    const report = await runCycle(runtime, sync, mapping.label, request);
    if (!dryRun) await pruneOldBackups(runtime, mapping);
    await commitAfterCycle(runtime, mapping, sync.editorId, report, emit, (p) => sync.baseText(p));
    // A push dry run also says which secret-looking files stay home.
    const skippedSecrets = kind === "push" && dryRun ? await findIgnoredSecrets(mapping.root, sync.matcher) : undefined;
    return { dir: mapping.dir, editorId: sync.editorId, ...summarizeCycle(report), ...(skippedSecrets === undefined ? {} : { skippedSecrets }) };
  });
}

async function runCycle(
  runtime: Runtime,
  sync: DesignSync,
  label: string,
  { kind, dryRun, force, progress, view }: OneShotRequest,
): Promise<CycleReport | undefined> {
  // `pull` only brings remote changes in: local edits wait for push or watch (README, "How sync works").
  if (kind === "pull") {
    const bar = view.pull();
    try {
      const onProgress = (done: number, total: number): void => {
        Object.assign(progress, { done, total });
        bar.update(done, total);
      };
      return await sync.fullSync({ force, dryRun, pullOnly: true, progress: onProgress });
    } finally {
      bar.stop();
    }
  }
  // Pushes wait while the design is generating (README, "How sync works"); then pull and reconcile first.
  const generating = await waitUntilIdle(runtime, sync, { wait: !dryRun, watch: view.idle });
  if (generating) {
    throw new MpsyncError("GENERATING", "the design is generating: nothing was pushed", { hint: "run mpsync push again when it is idle" });
  }
  // Never synced: there is no base to tell a push from a pull, and push writes no local file
  // but the merge of one it pushes. The first sync is a pull (or init --force).
  if (sync.state.artifactId === undefined) {
    throw new MpsyncError("USAGE", `${label} was never synced: nothing was pushed`, {
      hint: `run mpsync pull ${label} first (local files are kept and listed as waiting to be pushed), then mpsync push`,
    });
  }
  const changed = await sync.localChangeSet();
  const stop = dryRun ? () => undefined : view.pushing(changed.size);
  try {
    return await sync.pushPaths(changed.keys(), { dryRun, seen: changed });
  } finally {
    stop();
  }
}

/** `sync` without a daemon: the full two-way cycle under the folder's lock, after the design is idle. */
export async function syncHere(runtime: Runtime, mapping: Mapping, emit: EventSink, idle: IdleWatch): Promise<CycleSummary> {
  return withFolder(runtime, mapping, { command: "mpsync sync", emit }, async (sync) => {
    await waitUntilIdle(runtime, sync, { wait: true, watch: idle });
    const report = await sync.fullSync({});
    await pruneOldBackups(runtime, mapping);
    await commitAfterCycle(runtime, mapping, sync.editorId, report, emit);
    return summarizeCycle(report);
  });
}

/** After a one-shot cycle (under the folder's lock): the backups keepBackupsDays no longer keeps go; a failure is one warning. */
async function pruneOldBackups(runtime: Runtime, mapping: Mapping): Promise<void> {
  const keepDays = (await runtime.config()).config.keepBackupsDays;
  await pruneFolderBackups(mapping.root, { now: runtime.clock.now(), keepDays }, runtime.logger().child({ dir: mapping.dir }));
}

/** Whether a folder is paused (`mpsync sync` refuses one). */
export async function isPaused(mapping: Mapping): Promise<boolean> {
  return (await readPause(mapping.root)) !== undefined;
}

/**
 * Pauses (or resumes) a folder: the marker outlives the daemon; a running daemon is told.
 * `changed`: the folder was not already in that state; `reply`: the daemon's answer, if one runs.
 */
export async function setPause(runtime: Runtime, mapping: Mapping, pause: boolean): Promise<{ changed: boolean; reply: ControlReply | undefined }> {
  let changed: boolean;
  if (pause) {
    const before = await readPause(mapping.root);
    await writePause(mapping.root, { at: runtime.clock.now(), by: "mpsync pause" });
    changed = before === undefined;
  } else {
    changed = await clearPause(mapping.root);
  }
  const reply = await sendControl(mapping.root, { op: pause ? "pause" : "resume" });
  if (reply !== undefined && !reply.ok) throw new MpsyncError("DAEMON_REFUSED", `${mapping.label}: the running daemon refused: ${reply.message}`);
  return { changed, reply };
}
