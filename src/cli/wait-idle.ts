/** Waiting for a design to stop generating, with polls never closer than the interval. */
import type { DesignStatus } from "../api/schemas.js";
import type { DesignSync } from "../sync/design-sync.js";
import type { CommandContext } from "./context.js";
import { formatDuration } from "../core/duration.js";
import { currentStatus, recordStatus } from "../app/design-status.js";

/**
 * The design's generating state: polls now when the interval allows, else uses the last
 * status recorded (by any command or the daemon). With `wait`, polls until idle, showing
 * elapsed time and the next poll. Resolves to true while still generating (only without wait).
 */
export async function waitUntilIdle(ctx: CommandContext, sync: DesignSync, options: { wait: boolean }): Promise<boolean> {
  const status = await currentStatus(ctx.runtime, sync, { save: true });
  if (!status.isGenerating) return false;
  if (!options.wait) return true;
  await pollUntilIdle(ctx, sync.editorId, (s) => {
    recordStatus(sync, s, ctx.runtime.clock.now());
  });
  await sync.save();
  return false;
}

/** Polls `editorId` (spaced by the scheduler) until it is idle; returns the idle status. */
export async function pollUntilIdle(
  ctx: CommandContext,
  editorId: string,
  onStatus: (s: DesignStatus) => void = () => undefined,
): Promise<DesignStatus> {
  const scheduler = await ctx.runtime.pollScheduler();
  const client = await ctx.runtime.client();
  const clock = ctx.runtime.clock;
  const started = clock.monotonic();
  const progress = ctx.out.progress("waiting for the design to finish generating");
  let nextPollAt = clock.monotonic();
  const render = (): void => {
    const now = clock.monotonic();
    const next = nextPollAt > now ? `next poll in ${formatDuration(nextPollAt - now)}` : "polling now";
    progress.update(`generating… ${formatDuration(now - started)} elapsed, ${next}`);
  };
  // A spinner redraws every second so its elapsed time and countdown move between polls
  // (a poll may be a minute away); plain output prints one line per poll instead.
  const ticker = progress.live ? setInterval(render, PROGRESS_TICK_MS) : undefined;
  ticker?.unref();
  try {
    for (;;) {
      nextPollAt = clock.monotonic() + (await scheduler.delayUntilNextPoll(editorId));
      render();
      const status = await scheduler.poll(editorId, () => client.getStatus(editorId));
      onStatus(status);
      if (!status.isGenerating) return status;
    }
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
    progress.stop();
  }
}

/** How often a live wait redraws its elapsed time and countdown. */
export const PROGRESS_TICK_MS = 1000;
