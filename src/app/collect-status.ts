/**
 * The use case of `mpsync status`: collecting what is pending on each side, read without taking the folder's
 * lock. The local facts come from the folder alone (scan against the bases, the lock, the
 * pause), so they show at once and even when the service cannot be reached; the service's
 * part (remote changes, conflicts, generating or idle, active version) is added when it
 * answers.
 */
import type { Mapping, Runtime } from "../runtime.js";
import type { ReportReason } from "../sync/model.js";
import type { DesignSync } from "../sync/design-sync.js";
import { summarizeCycle } from "../sync/cycle-summary.js";
import { isLockHolderAlive, readFolderLock } from "../state/lock.js";
import { readPause } from "../state/pause-marker.js";
import { describeError } from "../sync/describe-error.js";
import { errorCode, hasCode } from "../core/errors.js";
import { openReadOnly } from "./folder.js";
import type { DesignStatusReport } from "./json-documents.js";

export type { DesignStatusReport, NotSynced } from "./json-documents.js";

/** A report that knows nothing yet (state unknown, empty lists): collectStatus fills it in. */
export function emptyStatusReport(dir: string): DesignStatusReport {
  return { dir, state: "unknown", localChanges: [], remoteChanges: [], conflicts: [], unresolvedConflicts: [], deletedLocally: [], notSynced: [] };
}

/**
 * How status words the plan's reports that leave a file out of sync. The rest are listed
 * elsewhere: conflict markers under "unresolved markers", with the way out.
 */
const NOT_SYNCED: Partial<Record<ReportReason, string>> = {
  "binary-not-pushed": "not UTF-8 text (binary): the service holds text files only, so it is never pushed",
};

/** Why a local change that the service refused (its content unchanged since) is not pushed. */
const REFUSED_CONTENT = "the service refused this content (a new name it would not create, or too large: 413): sent again when the file changes";

/** Failures that mean the service could not be reached (its part is left out, the local part stays). */
const UNREACHABLE = ["NETWORK", "TIMEOUT", "SERVER_ERROR"] as const;

/** Collects one design's status: the local facts, then the service's part. Never writes the folder. */
export async function collectStatus(runtime: Runtime, mapping: Mapping): Promise<DesignStatusReport> {
  const report = await folderFacts(runtime, mapping, emptyStatusReport(mapping.dir));
  let sync: DesignSync | undefined;
  try {
    sync = await openReadOnly(runtime, mapping);
    report.editorId = sync.editorId;
    applyStateFacts(report, sync, runtime.clock.now());
    // The newest versions are asked beside the cycle's reads, not after them: one round trip
    // less. The cycle's failure, when both fail, is the one said.
    const versions = newestVersions(runtime, sync.editorId);
    void versions.catch(() => undefined);
    const cycle = await sync.fullSync({ dryRun: true });
    applyPlan(report, sync, cycle);
    await addRemoteState(runtime, sync, report);
    report.activeVersion = (await versions).find((v) => v.artifactId === report.activeArtifactId)?.versionLabel;
  } catch (err) {
    if (hasCode(err, "NO_ARTIFACT")) {
      report.state = "no-version";
      report.note = err instanceof Error ? err.message : String(err);
      return report;
    }
    if (sync !== undefined && hasCode(err, ...UNREACHABLE)) {
      // The local part still tells what waits to go out; only the service's part is missing.
      await applyLocalScan(report, sync);
      report.serviceError = `the service could not be reached: ${describeError(err)}`;
      report.state = report.halted !== undefined ? "halted" : "unknown";
      return report;
    }
    report.state = "error";
    report.error = describeError(err);
    report.errorCode = errorCode(err);
  }
  return report;
}

/**
 * The local part of `previous` brought up to now from the folder alone (the scan cache makes
 * it one lstat per unchanged file): `status --watch` redraws it every second, between the
 * service's collections.
 */
export async function refreshLocalStatus(runtime: Runtime, mapping: Mapping, previous: DesignStatusReport): Promise<DesignStatusReport> {
  const report = await folderFacts(runtime, mapping, { ...previous });
  if (previous.state === "error" || previous.state === "no-version") return report;
  try {
    const sync = await openReadOnly(runtime, mapping);
    applyStateFacts(report, sync, runtime.clock.now());
    const remoteSide = new Set([...previous.remoteChanges, ...previous.conflicts, ...previous.notSynced.map((n) => n.path)]);
    await applyLocalScan(report, sync, remoteSide);
    if (report.halted !== undefined) report.state = "halted";
    else if (previous.state === "halted") report.state = "unknown";
  } catch {
    // The last collection's picture stays until the next one says why.
  }
  return report;
}

/** Lock holder (a live daemon and its uptime, or a stale lock) and the pause: the folder alone. */
async function folderFacts(runtime: Runtime, mapping: Mapping, report: DesignStatusReport): Promise<DesignStatusReport> {
  const now = runtime.clock.now();
  const lock = await readFolderLock(mapping.root).catch(() => undefined);
  const alive = lock !== undefined && isLockHolderAlive(lock);
  report.daemon = lock === undefined || !alive ? undefined : { pid: lock.pid, command: lock.command, uptimeSec: Math.round((now - lock.startedAt) / 1000) };
  report.staleLock = lock === undefined || alive ? undefined : { pid: lock.pid, command: lock.command };
  report.paused = await readPause(mapping.root);
  return report;
}

/** What state.json and daemon.json say: halt, last error, last known status. */
function applyStateFacts(report: DesignStatusReport, sync: DesignSync, now: number): void {
  const st = sync.state;
  report.halted = st.halted?.reason;
  report.lastError = st.lastError === undefined ? undefined : { ...st.lastError, ageSec: Math.max(0, Math.round((now - st.lastError.at) / 1000)) };
  report.generating = st.lastStatus?.isGenerating;
  report.statusAgeSec = st.lastStatus === undefined ? undefined : Math.round((now - st.lastStatus.at) / 1000);
}

/** Local changes, local deletions and files holding conflict markers, from a scan against the bases. */
async function applyLocalScan(report: DesignStatusReport, sync: DesignSync, remoteSide: ReadonlySet<string> = new Set()): Promise<void> {
  const changed = await sync.localChangeSet();
  const refused = new Set(Object.keys(sync.state.refusedLocal ?? {}));
  const local: string[] = [];
  const deleted: string[] = [];
  const markers: string[] = [];
  for (const [path, file] of changed) {
    if (remoteSide.has(path) || refused.has(path)) continue;
    if (file === undefined) deleted.push(path);
    else if (file.hasMarkers) markers.push(path);
    else if (!file.binary && sync.state.refusedContent?.[path] !== file.hash) local.push(path);
  }
  Object.assign(report, { localChanges: local, deletedLocally: deleted, unresolvedConflicts: markers });
}

/** The dry-run cycle's plan: every list status shows. */
function applyPlan(report: DesignStatusReport, sync: DesignSync, cycle: Awaited<ReturnType<DesignSync["fullSync"]>>): void {
  const plan = summarizeCycle(cycle);
  const st = sync.state;
  // A push of content the service refused is not a pending change: the executor skips it.
  const refused = new Set(cycle.plan.actions.flatMap((a) => (a.kind === "push" && st.refusedContent?.[a.path] === a.expectLocal ? [a.path] : [])));
  Object.assign(report, {
    activeArtifactId: plan.artifactId,
    localChanges: plan.pushed.filter((p) => !refused.has(p)),
    remoteChanges: [...plan.pulled, ...plan.removed],
    conflicts: plan.conflicts,
    unresolvedConflicts: plan.unresolvedConflicts,
    deletedLocally: plan.reports.filter((r) => r.reason === "deleted-locally").map((r) => r.path),
    halted: plan.halted ?? st.halted?.reason,
    notSynced: [
      ...Object.entries(st.refusedLocal ?? {}).map(([path, reason]) => ({ path, reason, needsAttention: true })),
      // A binary file the service never held is left out by design; one that replaced a synced
      // text is an edit that cannot go out.
      ...plan.reports.flatMap((r) => {
        const reason = NOT_SYNCED[r.reason];
        return reason === undefined ? [] : [{ path: r.path, reason, needsAttention: st.files[r.path] !== undefined }];
      }),
      ...sync.skipped,
      ...[...refused].map((path) => ({ path, reason: REFUSED_CONTENT, needsAttention: true })),
      ...cycle.refusedNames.map((r) => ({ path: r.name, reason: `remote name not written here: ${r.reason}`, needsAttention: true })),
    ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  });
}

/**
 * Generating or idle. A live daemon keeps it current; without one, status asks the service
 * itself when the poll limit allows it now (one poll per pollIntervalSec per design, shared
 * with every command), else shows the last known answer with its age.
 */
async function addRemoteState(runtime: Runtime, sync: DesignSync, report: DesignStatusReport): Promise<void> {
  const stale = report.statusAgeSec === undefined || report.statusAgeSec * 1000 >= (await runtime.config()).config.pollIntervalSec * 1000;
  if (report.daemon === undefined && stale) {
    const scheduler = await runtime.pollScheduler();
    if ((await scheduler.delayUntilNextPoll(sync.editorId)) === 0) {
      const client = await runtime.client();
      const status = await scheduler.poll(sync.editorId, () => client.getStatus(sync.editorId));
      report.generating = status.isGenerating;
      report.statusAgeSec = 0;
    }
  }
  report.state = report.halted !== undefined ? "halted" : report.generating === true ? "generating" : report.generating === false ? "idle" : "unknown";
}

/** The first page of the design's versions (the active one is the newest, or near it). */
async function newestVersions(runtime: Runtime, editorId: string): Promise<{ artifactId: string; versionLabel: string }[]> {
  return (await (await runtime.client()).listVersions(editorId, 0)).versions;
}
