/**
 * A daemon's life in a process: it runs until SIGINT/SIGTERM, which flush pending pushes for at
 * most MPSYNC_STOP_FLUSH_MS (a second signal exits at once), and SIGHUP reloads .syncrc. The
 * process edge hands in its signals (only `main.ts` touches `process`); the CLI renders the
 * outcome (`mpsync watch`, `mpsync dev`).
 */
import type { Clock } from "../core/clock.js";
import type { WatchDaemon } from "./watch-daemon.js";

/** What a daemon run takes from the process edge. */
export interface DaemonProcess {
  onSignal(signal: "SIGINT" | "SIGTERM" | "SIGHUP", handler: () => void): () => void;
  env: Record<string, string | undefined>;
  clock: Pick<Clock, "monotonic">;
  /** One line to the person who started it (stderr). */
  warn(line: string): void;
  /** Set up once the signals are heard, before the daemon starts (e.g. rate-limit events); resolves its undo. */
  subscribe?(): Promise<() => void>;
}

/**
 * Runs `daemon` (started or not) until it stops: resolves after a signal's stop (or when the
 * flush time ran out, or a second signal came); rejects with the daemon's failure once it is
 * stopped.
 */
export async function runUntilStopped(daemon: WatchDaemon, io: DaemonProcess): Promise<void> {
  const flushMs = stopFlushMs(io.env);
  let stopping: Promise<void> | undefined;
  let forceExit: () => void = () => undefined;
  const forced = new Promise<void>((resolve) => (forceExit = resolve));
  const unsent = "edits not sent stay on disk and go out at the next start";
  const repeatMs = signalRepeatMs(io.env);
  let firstSignalAt = 0;
  const stop = (): void => {
    if (stopping !== undefined) {
      // One Ctrl-C often arrives twice: from the terminal, and passed on by `npm run` or
      // a supervisor a moment later. Only a signal after that moment means "exit now".
      if (io.clock.monotonic() - firstSignalAt < repeatMs) return;
      io.warn(`second signal: exiting now; ${unsent}`);
      forceExit();
      return;
    }
    firstSignalAt = io.clock.monotonic();
    io.warn(`stopping: flushing pending pushes (at most ${Math.ceil(flushMs / 1000)} s; press Ctrl-C again to exit now)`);
    stopping = daemon.stop();
    setTimeout(() => {
      io.warn(`stop: pending requests did not finish within ${Math.ceil(flushMs / 1000)} s; exiting, ${unsent}`);
      forceExit();
    }, flushMs).unref();
  };
  const unsubscribe = [io.onSignal("SIGINT", stop), io.onSignal("SIGTERM", stop), io.onSignal("SIGHUP", () => void daemon.reloadAndSay("signal"))];
  try {
    if (io.subscribe !== undefined) unsubscribe.push(await io.subscribe());
    // A hanging request or a long Retry-After must not hold a stop: systemd would SIGKILL.
    await Promise.race([daemon.start(), forced]);
    await Promise.race([daemon.done, forced]);
  } catch (err) {
    await (stopping ?? daemon.stop().catch(() => undefined));
    throw err;
  } finally {
    for (const u of unsubscribe) u();
  }
}

/** How long a stop flushes before abandoning pending requests. @default 10000 (MPSYNC_STOP_FLUSH_MS, for tests) */
function stopFlushMs(env: Record<string, string | undefined>): number {
  return msFromEnv(env, "MPSYNC_STOP_FLUSH_MS", DEFAULT_STOP_FLUSH_MS, { zeroAllowed: false });
}

/** A stop flushes pending pushes for at most this long. */
const DEFAULT_STOP_FLUSH_MS = 10_000;

/** A signal this soon after the one that started a stop is the same request passed on. */
const DEFAULT_SIGNAL_REPEAT_MS = 500;

/** MPSYNC_SIGNAL_REPEAT_MS (tests: 0 makes any second signal exit at once), else the default. */
function signalRepeatMs(env: Record<string, string | undefined>): number {
  return msFromEnv(env, "MPSYNC_SIGNAL_REPEAT_MS", DEFAULT_SIGNAL_REPEAT_MS, { zeroAllowed: true });
}

/** A duration in ms from `env[name]`; `fallback` when unset, not a number, negative (or 0 unless allowed). */
function msFromEnv(env: Record<string, string | undefined>, name: string, fallback: number, options: { zeroAllowed: boolean }): number {
  const raw = env[name];
  const given = Number(raw);
  if (raw === undefined || raw.trim() === "" || !Number.isFinite(given)) return fallback;
  return given > 0 || (options.zeroAllowed && given === 0) ? given : fallback;
}
