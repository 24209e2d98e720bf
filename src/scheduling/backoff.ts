/**
 * The one backoff of mpsync: exponential waits with jitter and a cap, for both places that wait
 * after a failure. The request retry policy (`api/retry-policy.ts`) spreads a key's repeats
 * with full jitter; the daemon loop (`daemon/worker-loop.ts`) spaces failed cycles with equal
 * jitter, so a design never retries sooner than half its wait. Pure: time and randomness come in.
 */

/** An exponential backoff: attempt n waits up to `min(maxMs, baseMs * 2**n)`. */
export interface Backoff {
  /** The first wait's ceiling. */
  baseMs: number;
  /** No wait is longer. */
  maxMs: number;
}

/** Request retries (`RetryOptions.baseDelayMs` / `maxDelayMs`): 0.5 s doubling, at most 30 s. */
export const REQUEST_BACKOFF: Readonly<Backoff> = Object.freeze({ baseMs: 500, maxMs: 30_000 });

/** Failed daemon cycles (`WatchDaemonOptions.retry`): 1 s doubling, at most 60 s. */
export const CYCLE_BACKOFF: Readonly<Backoff> = Object.freeze({ baseMs: 1000, maxMs: 60_000 });

/** Past this many doublings every wait is at the cap anyway (and `2 **` stays finite). */
const MAX_DOUBLINGS = 20;

/** The ceiling of attempt `attempt` (0-based): `min(maxMs, baseMs * 2**attempt)`. */
export function backoffCeilingMs(attempt: number, backoff: Backoff): number {
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(attempt, MAX_DOUBLINGS));
}

/** Full jitter, whole ms in [0, ceiling): many callers of one key spread out (request retries). */
export function fullJitterMs(attempt: number, backoff: Backoff, random: number): number {
  return Math.floor(random * backoffCeilingMs(attempt, backoff));
}

/** Equal jitter, in [ceiling / 2, ceiling): never sooner than half the wait (daemon cycles). */
export function equalJitterMs(attempt: number, backoff: Backoff, random: number): number {
  const ceiling = backoffCeilingMs(attempt, backoff);
  return ceiling / 2 + random * (ceiling / 2);
}
