/**
 * Is a design generating? A use case shared by `prompt`, `checkout` (refused while it is) and
 * the waits of `push`, `sync`, `create --wait`, `init --create` and `prompt --wait`: the status
 * is polled only when the poll interval allows (PollScheduler, across processes), else the last
 * status any process recorded is used.
 */
import { parseSharedStatus, type DesignStatus } from "../api/schemas.js";
import { MpsyncError } from "../core/errors.js";
import type { Mapping, Runtime } from "../runtime.js";
import type { DesignSync } from "../sync/design-sync.js";
import type { EventSink } from "../sync/events.js";
import { holdFolder } from "./folder.js";

/**
 * The design's generating state: a poll when the interval allows, else the recorded status.
 * `save` records a polled status in `.mpsync` (only a process holding the folder's lock may).
 */
export async function currentStatus(runtime: Runtime, sync: DesignSync, options: { save: boolean }): Promise<{ isGenerating: boolean }> {
  const scheduler = await runtime.pollScheduler();
  const cached = sync.state.lastStatus;
  if (cached !== undefined && (await scheduler.delayUntilNextPoll(sync.editorId)) > 0) return cached;
  const client = await runtime.client();
  const status = await scheduler.poll(sync.editorId, () => client.getStatus(sync.editorId));
  if (options.save) {
    recordStatus(sync, status, runtime.clock.now());
    await sync.save();
  }
  return status;
}

/** Notes `status` as the design's last known one (`mpsync status` shows it and its age); not saved. */
export function recordStatus(sync: DesignSync, status: Pick<DesignStatus, "isGenerating" | "activeArtifactId">, at: number): void {
  sync.daemon.recordStatus(status, at);
}

/**
 * Whether the mapped design is generating, and its editorId. Takes the folder's lock when it
 * is free (then the polled status is recorded); a running daemon owns `.mpsync`, so with it
 * running the state is only read.
 */
export async function designGenerating(
  runtime: Runtime,
  mapping: Mapping,
  command: string,
  emit: EventSink,
): Promise<{ generating: boolean; editorId: string }> {
  const hold = await holdFolder(mapping.root, command);
  try {
    const sync = await runtime.openDesign(mapping, emit, { holdsLock: hold.lock !== undefined });
    const status = await currentStatus(runtime, sync, { save: hold.lock !== undefined });
    return { generating: status.isGenerating, editorId: sync.editorId };
  } finally {
    await hold.lock?.release();
  }
}

/**
 * Throws GENERATING (`notDone` says what did not happen) when the mapped design is generating;
 * resolves to its editorId.
 */
export async function refuseWhileGenerating(runtime: Runtime, mapping: Mapping, command: { name: string; notDone: string; emit: EventSink }): Promise<string> {
  const { generating, editorId } = await designGenerating(runtime, mapping, command.name, command.emit);
  if (generating) {
    throw new MpsyncError("GENERATING", `${mapping.label}: the design is generating: ${command.notDone}`, {
      hint: "wait until it is idle (mpsync status), then run the command again",
    });
  }
  return editorId;
}

/** What a wait for the end of a generation shows (the CLI: a spinner with a countdown). */
export interface IdleWatch {
  /** Before each poll: when it goes out, on the monotonic clock. */
  polling(nextPollAt: number): void;
  /** The wait ended (idle, or failed). */
  stop(): void;
}

/**
 * The design's generating state, the status recorded (the caller holds the folder's lock). With
 * `wait`, polls until idle; resolves to true while still generating (only without wait).
 */
export async function waitUntilIdle(runtime: Runtime, sync: DesignSync, options: { wait: boolean; watch?: IdleWatch }): Promise<boolean> {
  const status = await currentStatus(runtime, sync, { save: true });
  if (!status.isGenerating) return false;
  if (!options.wait) return true;
  await pollUntilIdle(runtime, sync.editorId, options.watch, (s) => recordStatus(sync, s, runtime.clock.now()));
  await sync.save();
  return false;
}

/** Polls `editorId` (spaced by the scheduler) until it is idle; returns the idle status. */
export async function pollUntilIdle(
  runtime: Runtime,
  editorId: string,
  watch?: IdleWatch,
  onStatus: (s: DesignStatus) => void = () => undefined,
): Promise<DesignStatus> {
  const scheduler = await runtime.pollScheduler();
  const client = await runtime.client();
  // A daemon polling the same design answers this wait too (its polls' answers are shared),
  // but only with answers given after the wait began.
  const follower = scheduler.follow(editorId, parseSharedStatus, { after: runtime.clock.now() });
  try {
    for (;;) {
      watch?.polling(runtime.clock.monotonic() + (await scheduler.delayUntilNextPoll(editorId)));
      const status = await follower.next(() => client.getStatus(editorId));
      onStatus(status);
      if (!status.isGenerating) return status;
    }
  } finally {
    watch?.stop();
  }
}
