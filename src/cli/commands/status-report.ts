/** `mpsync status`: what is pending on each side, read without taking the folder's lock. */
import type { Mapping } from "../../runtime.js";
import type { ReportReason } from "../../sync/model.js";
import { summarizeCycle } from "../../sync/cycle-summary.js";
import { isLockHolderAlive, readFolderLock } from "../../state/lock.js";
import type { CommandContext } from "../context.js";
import type { Output } from "../output.js";
import { formatDuration } from "../../core/duration.js";
import { describeError } from "../../sync/describe-error.js";
import { MpsyncError } from "../../core/errors.js";
import { openReadOnly } from "../../app/folder.js";

/** One design's status (also the `--json` shape). */
export interface DesignStatusReport {
  dir: string;
  editorId: string | undefined;
  /** `no-version`: the design has no artifact yet (its first generation runs, or ended without one). */
  state: "idle" | "generating" | "unknown" | "halted" | "error" | "no-version";
  generating: boolean | undefined;
  statusAgeSec: number | undefined;
  activeArtifactId: string | undefined;
  activeVersion: string | undefined;
  localChanges: string[];
  remoteChanges: string[];
  conflicts: string[];
  unresolvedConflicts: string[];
  deletedLocally: string[];
  halted: string | undefined;
  /** `ageSec`: how long ago, when status printed (a stale error must look stale). */
  lastError: { code: string; message: string; at: number; ageSec: number } | undefined;
  /** The process holding the folder's lock, only while it is alive (and is the one that took it). */
  daemon: { pid: number; uptimeSec: number; command: string } | undefined;
  /** A lock left by a process that is gone (killed): harmless, taken over by the next run. */
  staleLock: { pid: number; command: string } | undefined;
  /** Local files left out of sync, and why (names the service would refuse). */
  notSynced: { path: string; reason: string }[];
  error?: string;
  errorCode?: string;
  /** An informational line (e.g. why there is nothing to pull yet). */
  note?: string;
}

/** How status words the plan's reports that leave a file out of sync (the rest are listed elsewhere). */
const NOT_SYNCED: Partial<Record<ReportReason, string>> = {
  "binary-not-pushed": "not UTF-8 text (binary): the service holds text files only, so it is never pushed",
  "unresolved-markers": "holds conflict markers: resolve them and save, then it is pushed",
};

/** Why a local change that the service refused (its content unchanged since) is not pushed. */
const REFUSED_CONTENT = "the service refused this content (a new name it would not create, or too large: 413): sent again when the file changes";

/** A report that knows nothing yet (state unknown, empty lists): collectStatus fills it in. */
export function emptyStatusReport(dir: string): DesignStatusReport {
  return {
    dir,
    editorId: undefined,
    state: "unknown",
    generating: undefined,
    statusAgeSec: undefined,
    activeArtifactId: undefined,
    activeVersion: undefined,
    localChanges: [],
    remoteChanges: [],
    conflicts: [],
    unresolvedConflicts: [],
    deletedLocally: [],
    halted: undefined,
    lastError: undefined,
    daemon: undefined,
    staleLock: undefined,
    notSynced: [],
  };
}

/** Collects one design's status. Never writes the folder (the daemon may own it). */
export async function collectStatus(ctx: CommandContext, mapping: Mapping): Promise<DesignStatusReport> {
  const now = ctx.runtime.clock.now();
  const lock = await readFolderLock(mapping.root);
  const alive = lock !== undefined && isLockHolderAlive(lock);
  const daemon = lock === undefined || !alive ? undefined : { pid: lock.pid, command: lock.command, uptimeSec: Math.round((now - lock.startedAt) / 1000) };
  const staleLock = lock === undefined || alive ? undefined : { pid: lock.pid, command: lock.command };
  const report: DesignStatusReport = { ...emptyStatusReport(mapping.dir), daemon, staleLock };
  try {
    const sync = await openReadOnly(ctx.runtime, mapping);
    report.editorId = sync.editorId;
    const cycle = await sync.fullSync({ dryRun: true });
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
      lastError: st.lastError === undefined ? undefined : { ...st.lastError, ageSec: Math.max(0, Math.round((now - st.lastError.at) / 1000)) },
      notSynced: [
        ...Object.entries(st.refusedLocal ?? {}).map(([path, reason]) => ({ path, reason })),
        ...plan.reports.flatMap((r) => (NOT_SYNCED[r.reason] === undefined ? [] : [{ path: r.path, reason: NOT_SYNCED[r.reason] }])),
        ...sync.skipped,
        ...[...refused].map((path) => ({ path, reason: REFUSED_CONTENT })),
        ...cycle.refusedNames.map((r) => ({ path: r.name, reason: `remote name not written here: ${r.reason}` })),
      ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      generating: st.lastStatus?.isGenerating,
      statusAgeSec: st.lastStatus === undefined ? undefined : Math.round((now - st.lastStatus.at) / 1000),
    });
    report.state = report.halted !== undefined ? "halted" : report.generating === true ? "generating" : report.generating === false ? "idle" : "unknown";
    report.activeVersion = await activeVersionLabel(ctx, sync.editorId, plan.artifactId);
  } catch (err) {
    if (err instanceof MpsyncError && err.code === "NO_ARTIFACT") {
      report.state = "no-version";
      report.note = err.message;
      return report;
    }
    report.state = "error";
    report.error = describeError(err);
    report.errorCode = err instanceof MpsyncError ? err.code : "INTERNAL";
  }
  return report;
}

async function activeVersionLabel(ctx: CommandContext, editorId: string, artifactId: string | undefined): Promise<string | undefined> {
  if (artifactId === undefined) return undefined;
  const page = await (await ctx.runtime.client()).listVersions(editorId, 0);
  return page.versions.find((v) => v.artifactId === artifactId)?.versionLabel;
}

/** Names listed per kind by the human status before "and N more". */
export const STATUS_LIST_LIMIT = 5;

/** Human rendering. */
export function renderStatus(out: Output, reports: DesignStatusReport[]): void {
  const c = out.c;
  for (const r of reports) {
    const stateText =
      r.state === "generating" ? c.yellow("generating") : r.state === "idle" ? c.green("idle") : r.state === "halted" ? c.red("needs attention") : r.state === "error" ? c.red("error") : r.state === "no-version" ? c.yellow("no version yet") : c.dim("state unknown");
    // A live daemon polls all the time but saves an unchanged status once a minute: its age
    // would mislead. Without one, the age says how old the last known status is.
    const age = r.daemon !== undefined ? c.dim(" (watched)") : r.statusAgeSec === undefined ? "" : c.dim(` (as of ${formatDuration(r.statusAgeSec * 1000)} ago)`);
    out.info(`${c.bold(out.folder(r.dir))}  ${r.editorId ?? ""}  ${stateText}${age}  ${r.activeVersion ?? ""}`);
    if (r.error !== undefined) out.info(`  ${c.red(r.error)}`);
    if (r.note !== undefined) out.info(`  ${c.dim(r.note)}`);
    if (r.halted !== undefined) out.info(`  ${c.red("halted:")} ${r.halted}; run mpsync pull --force once checked`);
    if (r.daemon !== undefined) out.info(`  ${c.dim(`daemon: pid ${r.daemon.pid}, up ${formatDuration(r.daemon.uptimeSec * 1000)} (${r.daemon.command})`)}`);
    if (r.staleLock !== undefined) out.info(`  ${c.dim(`no daemon running (pid ${r.staleLock.pid}, ${r.staleLock.command}, is gone; its lock is taken over by the next run)`)}`);
    const list = (label: string, items: string[]): void => {
      if (items.length === 0) return;
      // A long list names the first few (--json keeps every one).
      const shown = items.length > STATUS_LIST_LIMIT ? [...items.slice(0, STATUS_LIST_LIMIT), `and ${(items.length - STATUS_LIST_LIMIT).toLocaleString("en-US")} more`] : items;
      out.info(`  ${label} (${items.length.toLocaleString("en-US")}): ${shown.join(", ")}`);
    };
    list(c.green("local changes"), r.localChanges);
    list(c.blue("remote changes"), r.remoteChanges);
    list(c.yellow("conflicts"), r.conflicts);
    list(c.yellow("unresolved markers"), r.unresolvedConflicts);
    list(c.dim("deleted locally"), r.deletedLocally);
    if (r.notSynced.length > 0) {
      out.info(`  ${c.yellow(`not synced (${r.notSynced.length})`)}:`);
      for (const n of r.notSynced) out.info(`    ${n.path}: ${n.reason}`);
    }
    if (r.lastError !== undefined) out.info(`  ${c.dim(`last error (${formatDuration(r.lastError.ageSec * 1000)} ago): ${r.lastError.message}`)}`);
    if (isInSync(r)) out.info(`  ${c.dim("in sync")}`);
  }
}

/** "in sync" only when nothing is pending, refused, halted, conflicted or failing. */
export function isInSync(r: DesignStatusReport): boolean {
  const lists = [r.localChanges, r.remoteChanges, r.conflicts, r.unresolvedConflicts, r.notSynced];
  return lists.every((l) => l.length === 0) && r.error === undefined && r.halted === undefined && r.state !== "no-version" && r.lastError === undefined;
}
