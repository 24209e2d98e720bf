/**
 * What every cycle of one folder shares: the folder's wiring (DesignSyncOptions), the design,
 * the owners of its state and the memories that outlive a cycle. DesignSync builds it once at
 * open; the cycle (cycle.ts) and its reads and steps take it instead of the class. Planning
 * (plan-cycle.ts) does not: it takes values.
 */
import type { V3Client } from "../api/client-types.js";
import type { Clock } from "../core/clock.js";
import type { IgnoreMatcher } from "../local/ignore-rules.js";
import type { Logger } from "../log/logger.js";
import type { BaseLedger } from "./base-ledger.js";
import type { CheckScope } from "./check-scope.js";
import type { EventSink } from "./events.js";
import type { ExecuteResult } from "./executor.js";
import type { FolderStatus } from "./folder-status.js";
import type { ConflictPolicy, SyncPlan } from "./model.js";
import type { DesignStore, LocalTree } from "./ports.js";
import type { Announcements } from "./announcements.js";

/** Everything one design's sync needs, wired by the composition root. */
export interface DesignSyncOptions {
  /** The mapping's folder as written in .syncrc (for messages and events). */
  dir: string;
  /** The mapping's design string (editorId or URL). */
  design: string;
  client: V3Client;
  local: LocalTree;
  /** The folder's ignore rules (the watcher uses the same ones). */
  matcher: IgnoreMatcher;
  store: DesignStore;
  policy: ConflictPolicy;
  logger: Logger;
  emit: EventSink;
  clock: Clock;
  /**
   * True while pushes must wait (a git operation holds the repository): checked just before
   * the PATCH, so a cycle that began before git took its lock does not push half its work.
   */
  holdPushes?: () => boolean;
  /** A daemon (`watch`, `dev`): a local deletion is said when a cycle first finds it (deletion-notice.ts). */
  sayDeletions?: boolean;
}

/** One folder's cycles' shared context (after DesignSync.open). */
export interface CycleContext {
  readonly options: DesignSyncOptions;
  readonly editorId: string;
  readonly ledger: BaseLedger;
  readonly status: FolderStatus;
  /** A halt, a path failure or a local deletion is announced when it begins and when it ends, not every cycle. */
  readonly announced: Announcements;
  /** The files a content check reads (check-scope.ts). */
  readonly scope: CheckScope;
  /** artifactId -> "remote v7" (a version's label never changes: asked once). */
  readonly labels: Map<string, Promise<string>>;
  /** Says `message` once: a log line and a `notice` event. */
  notice(message: string): void;
  /** Saves every part of the folder's state. */
  save(): Promise<void>;
}

/** Told after each file a cycle writes, removes or merges (done of total): a progress bar. */
export type CycleProgress = (done: number, total: number) => void;

/** What a cycle did (or, with dryRun, would do). */
export interface CycleReport {
  plan: SyncPlan;
  dryRun: boolean;
  result: ExecuteResult | undefined;
  artifactId: string;
  /** Every name the active artifact listed (to notice a change in later status polls). */
  remoteNames: string[];
  refusedNames: { name: string; reason: string }[];
  /** A full sync: every local and remote file was compared (a push pass compares only its paths). */
  wholeFolder?: boolean;
}
