/** `mpsync watch`: the daemon, until SIGINT/SIGTERM (flush, then exit 0); SIGHUP reloads .syncrc. */
import { WatchDaemon } from "../../daemon/watch-daemon.js";
import { runUntilStopped } from "../../daemon/run-until-stopped.js";
import { explainRefusedKey, type CommandContext } from "../context.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import { errorCode } from "../../core/errors.js";
import { describeError } from "../../sync/describe-error.js";

/** `mpsync watch`. */
export async function runWatch(ctx: CommandContext, dirs: string[]): Promise<number> {
  const daemon = new WatchDaemon({ runtime: ctx.runtime, dirs, emit: (e) => ctx.out.event(e) });
  return runDaemonUntilStopped(ctx, daemon);
}

/**
 * Runs a started-or-not daemon until SIGINT/SIGTERM (daemon/run-until-stopped.ts), with
 * rate-limit events on the way; says a failure in one line. Resolves to the exit code.
 */
export async function runDaemonUntilStopped(ctx: CommandContext, daemon: WatchDaemon): Promise<number> {
  try {
    await runUntilStopped(daemon, {
      onSignal: (signal, handler) => ctx.io.onSignal(signal, handler),
      env: ctx.io.env,
      clock: ctx.runtime.clock,
      warn: (line) => ctx.out.warn(line),
      subscribe: async () =>
        (await ctx.runtime.requestQueue()).onRateLimited((e) =>
          ctx.out.event({
            event: "rate_limited",
            dir: "*",
            message: `rate limited: requests paused for ${Math.ceil(e.delayMs / 1000)} s`,
            delayMs: e.delayMs,
            until: e.until,
          }),
        ),
    });
    return EXIT.ok;
  } catch (err) {
    const explained = explainRefusedKey(err, ctx);
    // --json: stdout stays JSON Lines to the end, so the last word is an event too.
    if (ctx.out.opts.json)
      ctx.out.event({ event: "error", dir: "*", code: errorCode(explained), message: describeError(explained), exitCode: exitCodeFor(explained) });
    else ctx.out.error(explained);
    return exitCodeFor(err);
  }
}
