/**
 * Is a design generating? A use case shared by `prompt`, `checkout` and the waits of
 * `prompt --wait` / `pull --wait`: the status is polled only when the poll interval allows
 * (PollScheduler, across processes), else the last status any process recorded is used.
 */
import type { DesignStatus } from "../api/schemas.js";
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
export async function designGenerating(runtime: Runtime, mapping: Mapping, command: string, emit: EventSink): Promise<{ generating: boolean; editorId: string }> {
  const hold = await holdFolder(mapping.root, command);
  try {
    const sync = await runtime.openDesign(mapping, emit, { holdsLock: hold.lock !== undefined });
    const status = await currentStatus(runtime, sync, { save: hold.lock !== undefined });
    return { generating: status.isGenerating, editorId: sync.editorId };
  } finally {
    await hold.lock?.release();
  }
}
