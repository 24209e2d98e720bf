/**
 * The glue between a sync cycle and `git.commitOnPull`: the engine knows nothing of git; the
 * composition (watch daemon, one-shot pull) hands it this callback when the option is on.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type { V3Client } from "../api/client-types.js";
import type { Logger } from "../log/logger.js";
import type { CycleReport } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import { describeError } from "../sync/describe-error.js";
import { commitPulledVersion, findVersionOfArtifact, type CommitOutcome } from "./commit-on-pull.js";

/**
 * Called after a cycle that pulled or removed files. `versionText` gives the last synced text
 * of a path (the version's, for a file with local work). Never rejects: git trouble is reported.
 */
export type PulledHook = (report: CycleReport, editorId: string, versionText?: (path: string) => Promise<string | undefined>) => Promise<void>;

/** What the committer needs about one mapping. */
export interface PullCommitterOptions {
  /** config.git.commitOnPull */
  enabled: boolean;
  /** The mapped folder (absolute). */
  root: string;
  /** The mapping's folder as written in .syncrc (events). */
  dir: string;
  client: V3Client;
  logger: Logger;
  emit: EventSink;
}

/** The hook committing each pulled version, or undefined when commitOnPull is off. */
export function createPullCommitter(options: PullCommitterOptions): PulledHook | undefined {
  if (!options.enabled) return undefined;
  return async (report, editorId, versionText) => {
    if (pulledPaths(report).length === 0) return;
    try {
      const { paths, withLocalWork } = await versionPaths(options.root, report);
      const versionTexts = await textsOf(withLocalWork, versionText);
      const version = await versionOrUndefined(options, editorId, report.artifactId);
      const outcome = await commitPulledVersion({ folderRoot: options.root, paths, versionTexts, editorId, artifactId: report.artifactId, version });
      reportOutcome(options, outcome, version?.versionLabel ?? report.artifactId, editorId);
    } catch (err) {
      // A failed commit never fails the sync: the files are on disk, the user can commit them.
      notice(options, editorId, `git commit of the pulled version failed: ${describeError(err)}`);
    }
  };
}

/**
 * What the commit of a pulled version holds: after a full sync, every file of the version the
 * folder holds as the version has it (a file pulled with an earlier, uncommitted version
 * included, so the commit builds), plus the removed ones; after a push pass, which compared
 * only its own paths, the pulled and removed paths. Files with local work (pushed, merged,
 * waiting to be pushed, conflicted, deleted locally), refused names and anything not a file on
 * disk stay out.
 */
export async function versionPaths(root: string, report: CycleReport): Promise<{ paths: string[]; withLocalWork: string[] }> {
  const pulled = pulledPaths(report);
  const r = report.result;
  if (r === undefined || report.wholeFolder !== true) return { paths: pulled, withLocalWork: [] };
  // Left out entirely: what the cycle could not settle, and names never written.
  const unsettled = new Set<string>([...r.changedMeanwhile, ...r.blocked, ...r.failed.map((f) => f.path), ...report.refusedNames.map((n) => n.name)]);
  // Committed with the version's text: the work tree holds local work on top of it.
  const localWork = new Set<string>(r.conflicts.map((c) => c.path));
  for (const a of report.plan.actions) if (a.kind === "push" || a.kind === "conflict" || a.kind === "report") localWork.add(a.path);
  const names = report.remoteNames.filter((n) => !unsettled.has(n));
  const candidates = names.filter((n) => !localWork.has(n));
  const onDisk = await Promise.all(
    candidates.map((n) =>
      lstat(join(root, ...n.split("/"))).then(
        (s) => s.isFile(),
        () => false,
      ),
    ),
  );
  return { paths: [...new Set([...candidates.filter((_, i) => onDisk[i]), ...pulled])], withLocalWork: names.filter((n) => localWork.has(n)) };
}

async function textsOf(
  paths: readonly string[],
  versionText: ((path: string) => Promise<string | undefined>) | undefined,
): Promise<{ path: string; text: string }[]> {
  if (versionText === undefined) return [];
  const texts = await Promise.all(paths.map(async (path) => ({ path, text: await versionText(path) })));
  return texts.filter((t): t is { path: string; text: string } => t.text !== undefined);
}

/** Pulled and removed paths of a cycle (conflicted files stay out: they mix in local work). */
export function pulledPaths(report: CycleReport): string[] {
  const r = report.result;
  if (r === undefined || report.dryRun) return [];
  return [...r.pulled, ...r.removed];
}

async function versionOrUndefined(o: PullCommitterOptions, editorId: string, artifactId: string) {
  try {
    return await findVersionOfArtifact(o.client, editorId, artifactId);
  } catch (err) {
    // The commit still carries the artifactId; only the label, title and date are missing.
    o.logger.debug({ err }, "version lookup for the commit failed");
    return undefined;
  }
}

function reportOutcome(o: PullCommitterOptions, outcome: CommitOutcome, label: string, editorId: string): void {
  if (outcome.committed) {
    o.logger.info({ sha: outcome.sha }, `committed ${label} as ${outcome.sha?.slice(0, 12) ?? "?"}`);
    if (outcome.reason !== undefined) o.logger.warn(outcome.reason);
    return;
  }
  if (outcome.skip === "unchanged" || outcome.skip === "ignored") {
    o.logger.debug(`no commit for ${label}: ${outcome.reason ?? ""}`);
    return;
  }
  notice(o, editorId, `git.commitOnPull: ${label} not committed: ${outcome.reason ?? "unknown reason"}`);
}

function notice(o: PullCommitterOptions, editorId: string, message: string): void {
  o.logger.warn(message);
  o.emit({ event: "notice", dir: o.dir, editorId, message });
}
