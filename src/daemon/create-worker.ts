/**
 * The wiring of one design's daemon worker (`mpsync watch`): its engine, chokidar source, git
 * pause and commit-on-pull, all from .syncrc and the runtime. The watcher and git modules load
 * only here, when a daemon starts.
 */
import type { Mapping, Runtime, WriteObserver } from "../runtime.js";
import type { Backoff } from "../scheduling/backoff.js";
import type { EventSink } from "../sync/events.js";
import type { DesignWorker } from "./design-worker.js";
import { EngineEvents } from "./engine-events.js";
import { parseSharedStatus, type DesignStatus } from "../api/schemas.js";
import type { PollFollower } from "../scheduling/poll-scheduler.js";
import { pruneFolderBackups } from "../local/backup-retention.js";

/** What the daemon hands a design's worker (the rest comes from .syncrc). */
export interface DesignWorkerWiring {
  emit: EventSink;
  /** False once this process no longer holds the folder's lock. */
  lockHeld: () => Promise<boolean>;
  /** The whole daemon must stop (a refused key). */
  onFatal: (err: unknown) => void;
  /** This design stopped for good (403, 404, its lock gone). */
  onStopped?: ((err: unknown) => void) | undefined;
  retry?: Backoff | undefined;
  /** Told when the engine starts writing into the folder and when its cycle is over (`mpsync dev`). */
  writes?: WriteObserver | undefined;
  /** Hears each local change the change source sees, before its debounce (`mpsync dev`). */
  onLocalChange?: ((rel: string) => void) | undefined;
}

/** One design's daemon worker, wired from `runtime` and .syncrc. */
export async function createDesignWorker(runtime: Runtime, mapping: Mapping, wiring: DesignWorkerWiring): Promise<DesignWorker> {
  const [{ DesignWorker }, { createChangeSource }, gitLock, { createPullCommitter }] = await Promise.all([
    import("./design-worker.js"),
    import("../watch/chokidar-source.js"),
    import("../local/git-lock.js"),
    import("../git/pull-committer.js"),
  ]);
  const { config } = await runtime.config();
  const gitDir = config.git.pauseDuringGitOps ? gitLock.findGitDir(mapping.root) : undefined;
  const gitBusy = (): boolean => gitDir !== undefined && gitLock.isGitBusy(gitDir);
  const writes = wiring.writes;
  // The worker hears the engine's events first (after an outage, "back online" goes before "pushed").
  const engineEvents = new EngineEvents(wiring.emit);
  const sync = await runtime.createDesignSync(mapping, engineEvents.sink, {
    holdPushes: gitBusy,
    sayDeletions: true,
    ...(writes === undefined ? {} : { onLocalWrite: () => writes.writing() }),
  });
  const scheduler = await runtime.pollScheduler();
  // One watcher per worker: its polls share the limit and the answers with every other watcher.
  let follower: { editorId: string; follower: PollFollower<DesignStatus> } | undefined;
  const followerOf = (editorId: string): PollFollower<DesignStatus> => {
    if (follower?.editorId !== editorId) follower = { editorId, follower: scheduler.follow(editorId, parseSharedStatus) };
    return follower.follower;
  };
  const client = await runtime.client();
  const logger = runtime.logger().child({ dir: mapping.dir });
  return new DesignWorker({
    dir: mapping.dir,
    label: mapping.label,
    sync,
    engineEvents,
    client,
    emit: wiring.emit,
    logger,
    clock: runtime.clock,
    publishOnPush: config.publishOnPush,
    lockHeld: wiring.lockHeld,
    remoteCheckMs: config.remoteCheckSec * 1000,
    onPulled: createPullCommitter({ enabled: config.git.commitOnPull, root: mapping.root, dir: mapping.dir, client, logger, emit: wiring.emit }),
    retry: wiring.retry,
    // A save opens the connection while the debounce runs (after an idle pause the keep-alive
    // connection is gone: a TCP and TLS handshake would otherwise delay the push).
    watch: (onBatch, onError) =>
      createChangeSource({
        root: mapping.root,
        matcher: sync.matcher,
        debounceMs: config.debounceMs,
        onBatch,
        onError,
        onActivity: () => client.warm?.(),
        onPath: wiring.onLocalChange,
      }),
    schedulePoll: (editorId, poll, signal) => followerOf(editorId).next(poll, signal),
    gitBusy,
    waitForGit: async (signal) => (gitDir === undefined ? { waitedMs: 0 } : gitLock.waitForGitIdle(gitDir, { signal })),
    onFatal: wiring.onFatal,
    onStopped: wiring.onStopped,
    settleHeap: runtime.heapSettler(),
    // Read at each prune: a reload's keepBackupsDays applies without a restart.
    pruneBackups: async () => {
      const keepDays = (await runtime.config()).config.keepBackupsDays;
      await pruneFolderBackups(mapping.root, { now: runtime.clock.now(), keepDays }, logger);
    },
    ...(writes === undefined ? {} : { onCycleEnd: () => writes.settled() }),
  });
}
