/**
 * Time as a port, so schedulers and the engine can run on a fake clock in unit tests.
 * Two readings: `now` is the wall clock (what is stored, shown, or shared with other
 * processes); `monotonic` is for every interval, timeout and age the process itself measures,
 * so a wall clock stepped back (NTP, a laptop waking, a user) never stalls or hurries sync.
 */
export interface Clock {
  /** Epoch milliseconds (wall clock: may jump either way). */
  now(): number;
  /** Milliseconds from an arbitrary origin that never moves backwards (durations only). */
  monotonic(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export function createSystemClock(): Clock {
  return {
    now: () => Date.now(),
    // Not performance.now(): Node 20 loads perf_hooks (and worker_threads with it) on the first
    // use of `performance`, which every command's start would pay.
    monotonic: () => Number(process.hrtime.bigint()) / 1e6,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(
          () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
          Math.max(0, ms),
        );
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
  };
}
