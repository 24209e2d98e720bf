/**
 * The glue between a sync cycle and `git.commitOnPull`: the engine knows nothing of git; the
 * composition (watch daemon, one-shot pull) hands it this callback when the option is on.
 */
import type { V3Client } from "../api/client-types.js";
import type { Logger } from "../log/logger.js";
import type { CycleReport } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import { describeError } from "../sync/describe-error.js";
import { commitPulledVersion, findVersionOfArtifact, type CommitOutcome } from "./commit-on-pull.js";

/** Called after a cycle that pulled or removed files. Never rejects: git trouble is reported. */
export type PulledHook = (report: CycleReport, editorId: string) => Promise<void>;

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
  return async (report, editorId) => {
    const paths = pulledPaths(report);
    if (paths.length === 0) return;
    try {
      const version = await versionOrUndefined(options, editorId, report.artifactId);
      const outcome = await commitPulledVersion({ folderRoot: options.root, paths, editorId, artifactId: report.artifactId, version });
      reportOutcome(options, outcome, version?.versionLabel ?? report.artifactId, editorId);
    } catch (err) {
      // A failed commit never fails the sync: the files are on disk, the user can commit them.
      notice(options, editorId, `git commit of the pulled version failed: ${describeError(err)}`);
    }
  };
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
