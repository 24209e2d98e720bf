/** What a DesignWorker (design-worker.ts) is wired with, and what a `sync` asked of it came to. */
import type { V3Client } from "../api/client-types.js";
import type { DesignStatus } from "../api/schemas.js";
import type { Clock } from "../core/clock.js";
import type { Logger } from "../log/logger.js";
import type { Backoff } from "../scheduling/backoff.js";
import type { CycleReport, DesignSync } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import type { ChangeSourceHandle } from "../sync/ports.js";
import type { EngineEvents } from "./engine-events.js";

/** What a worker needs; wired by the composition root. */
export interface DesignWorkerOptions {
  /** As written in .syncrc: the `dir` of every event. */
  dir: string;
  /** How the daemon's lines name the folder (config/mappings.ts `folderLabel`). */
  label: string;
  sync: DesignSync;
  /** The events `sync` emits, heard by the worker before they go out (engine-events.ts). */
  engineEvents?: EngineEvents;
  client: V3Client;
  emit: EventSink;
  logger: Logger;
  clock: Clock;
  publishOnPush: boolean;
  /**
   * How often an idle design's remote file contents are read and reconciled, to see changes
   * that move no artifact id (web editor, a teammate's push), in ms. @default 60000
   */
  remoteCheckMs?: number;
  /** After a cycle that pulled or removed files (git.commitOnPull); must not reject. */
  onPulled?: (report: CycleReport, editorId: string, versionText: (path: string) => Promise<string | undefined>) => Promise<void>;
  /** Starts watching; batches of relative paths arrive through `onBatch`. */
  watch(onBatch: (paths: Set<string>) => void, onError: (err: unknown) => void): ChangeSourceHandle;
  /** Runs `poll` no sooner than the poll interval allows (PollScheduler). */
  schedulePoll(editorId: string, poll: () => Promise<DesignStatus>, signal: AbortSignal): Promise<DesignStatus>;
  /** True while a git operation holds the enclosing repository (index.lock). */
  gitBusy(): boolean;
  /** Resolves when no git operation holds the enclosing repository (or at once). */
  waitForGit(signal: AbortSignal): Promise<{ waitedMs: number; operation?: string | undefined }>;
  /** False when this process no longer holds the folder's lock (checked at every status poll). */
  lockHeld?: () => Promise<boolean>;
  /** Called when the whole daemon must stop (401). */
  onFatal(err: unknown): void;
  /** Called once when this design stops for good (403, 404, its lock gone), with the reason. */
  onStopped?: (err: unknown) => void;
  /** After a full sync of a large design: free its garbage once quiet (src/core/heap.ts). */
  settleHeap?: () => void;
  /** Backoff of failed cycles, in ms. @default CYCLE_BACKOFF: { baseMs: 1000, maxMs: 60000 } */
  retry?: Backoff;
  /** Jitter source in [0, 1) for retry delays. @default Math.random */
  random?: () => number;
  /** Removes the backups keepBackupsDays no longer keeps (at start, then about once a day); must not reject. */
  pruneBackups?: () => Promise<void>;
  /** After every sync cycle, whatever its outcome (`mpsync dev` reloads only once a pull's writes are done). */
  onCycleEnd?: () => void;
}

/** What a `mpsync sync` (or a `pull --force` handed over) asked of a running worker came to. */
export type SyncNowOutcome = { ok: true; report: CycleReport | undefined; haltCleared: boolean } | { ok: false; code: string; message: string };
