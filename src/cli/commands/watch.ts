/** `mpsync watch`: the daemon, until SIGINT/SIGTERM (flush, then exit 0); SIGHUP reloads .syncrc. */
import { WatchDaemon } from "../../daemon/watch-daemon.js";
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
 * Runs a started-or-not daemon until SIGINT/SIGTERM (flush for at most MPSYNC_STOP_FLUSH_MS, a
 * second signal exits at once), reloading .syncrc on SIGHUP; resolves to the exit code.
 */
export async function runDaemonUntilStopped(ctx: CommandContext, daemon: WatchDaemon): Promise<number> {
  const flushMs = stopFlushMs(ctx.io.env);
  let stopping: Promise<void> | undefined;
  let forceExit: () => void = () => undefined;
  const forced = new Promise<void>((resolve) => (forceExit = resolve));
  const unsent = "edits not sent stay on disk and go out at the next start";
  const repeatMs = signalRepeatMs(ctx.io.env);
  let firstSignalAt = 0;
  const stop = (): void => {
    if (stopping !== undefined) {
      // One Ctrl-C often arrives twice: from the terminal, and passed on by `npm run` or
      // a supervisor a moment later. Only a signal after that moment means "exit now".
      if (ctx.runtime.clock.monotonic() - firstSignalAt < repeatMs) return;
      ctx.out.warn(`second signal: exiting now; ${unsent}`);
      forceExit();
      return;
    }
    firstSignalAt = ctx.runtime.clock.monotonic();
    ctx.out.warn(`stopping: flushing pending pushes (at most ${Math.ceil(flushMs / 1000)} s; press Ctrl-C again to exit now)`);
    stopping = daemon.stop();
    setTimeout(() => {
      ctx.out.warn(`stop: pending requests did not finish within ${Math.ceil(flushMs / 1000)} s; exiting, ${unsent}`);
      forceExit();
    }, flushMs).unref();
  };
  const unsubscribe = [
    ctx.io.onSignal("SIGINT", stop),
    ctx.io.onSignal("SIGTERM", stop),
    ctx.io.onSignal("SIGHUP", () => void daemon.reloadAndSay("signal")),
  ];
  try {
    unsubscribe.push(
      (await ctx.runtime.requestQueue()).onRateLimited((e) =>
        ctx.out.event({ event: "rate_limited", dir: "*", message: `rate limited: requests paused for ${Math.ceil(e.delayMs / 1000)} s`, delayMs: e.delayMs, until: e.until }),
      ),
    );
    // A hanging request or a long Retry-After must not hold a stop: systemd would SIGKILL.
    await Promise.race([daemon.start(), forced]);
    await Promise.race([daemon.done, forced]);
    return EXIT.ok;
  } catch (err) {
    await (stopping ?? daemon.stop().catch(() => undefined));
    const explained = explainRefusedKey(err, ctx);
    // --json: stdout stays JSON Lines to the end, so the last word is an event too.
    if (ctx.out.opts.json) ctx.out.event({ event: "error", dir: "*", code: errorCode(explained), message: describeError(explained), exitCode: exitCodeFor(explained) });
    else ctx.out.error(explained);
    return exitCodeFor(err);
  } finally {
    for (const u of unsubscribe) u();
  }
}

/** How long a stop flushes before abandoning pending requests. @default 10000 (MPSYNC_STOP_FLUSH_MS, for tests) */
export function stopFlushMs(env: Record<string, string | undefined>): number {
  return msFromEnv(env, "MPSYNC_STOP_FLUSH_MS", DEFAULT_STOP_FLUSH_MS, { zeroAllowed: false });
}

/** A stop flushes pending pushes for at most this long. */
export const DEFAULT_STOP_FLUSH_MS = 10_000;

/** A signal this soon after the one that started a stop is the same request passed on. */
export const DEFAULT_SIGNAL_REPEAT_MS = 500;

/** MPSYNC_SIGNAL_REPEAT_MS (tests: 0 makes any second signal exit at once), else the default. */
export function signalRepeatMs(env: Record<string, string | undefined>): number {
  return msFromEnv(env, "MPSYNC_SIGNAL_REPEAT_MS", DEFAULT_SIGNAL_REPEAT_MS, { zeroAllowed: true });
}

/** A duration in ms from `env[name]`; `fallback` when unset, not a number, negative (or 0 unless allowed). */
function msFromEnv(env: Record<string, string | undefined>, name: string, fallback: number, options: { zeroAllowed: boolean }): number {
  const raw = env[name];
  const given = Number(raw);
  if (raw === undefined || raw.trim() === "" || !Number.isFinite(given)) return fallback;
  return given > 0 || (options.zeroAllowed && given === 0) ? given : fallback;
}
