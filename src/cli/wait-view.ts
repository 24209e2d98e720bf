/** How a wait for the end of a generation shows: elapsed time and the next poll. */
import type { IdleWatch } from "../app/design-status.js";
import { formatDuration } from "../core/duration.js";
import type { CommandContext } from "./context.js";

/** How often a live wait redraws its elapsed time and countdown. */
const PROGRESS_TICK_MS = 1000;

/**
 * A spinner from the first poll on (nothing shows when the design is idle at once). It redraws
 * every second so its elapsed time and countdown move between polls (a poll may be a minute
 * away); plain output prints one line per poll instead.
 */
export function idleWaitView(ctx: CommandContext): IdleWatch {
  const clock = ctx.runtime.clock;
  let shown: { progress: ReturnType<CommandContext["out"]["progress"]>; started: number; ticker: NodeJS.Timeout | undefined } | undefined;
  let nextPollAt = clock.monotonic();
  const render = (): void => {
    if (shown === undefined) return;
    const now = clock.monotonic();
    const next = nextPollAt > now ? `next poll in ${formatDuration(nextPollAt - now)}` : "polling now";
    shown.progress.update(`generating… ${formatDuration(now - shown.started)} elapsed, ${next}`);
  };
  return {
    polling(at) {
      if (shown === undefined) {
        const progress = ctx.out.progress("waiting for the design to finish generating");
        shown = { progress, started: clock.monotonic(), ticker: progress.live ? setInterval(render, PROGRESS_TICK_MS) : undefined };
        shown.ticker?.unref();
      }
      nextPollAt = at;
      render();
    },
    stop() {
      if (shown?.ticker !== undefined) clearInterval(shown.ticker);
      shown?.progress.stop();
    },
  };
}
