/**
 * `strictPoll`: one status poll per design per key per interval (docs/service-facts.md#limits). The
 * interval runs from the last ACCEPTED poll, so a client that waits the Retry-After it was
 * given always gets through on its next try.
 */

/** Remembers accepted polls per (owner, design). */
export class PollLimiter {
  readonly #minIntervalMs: number;
  readonly #lastAccepted = new Map<string, number>();

  constructor(minIntervalMs: number) {
    this.#minIntervalMs = minIntervalMs;
  }

  /** Seconds to wait (rounded up) when the poll is too early; undefined when accepted (and recorded). */
  check(owner: string, editorId: string, now: number): number | undefined {
    const key = `${owner}\u0000${editorId}`;
    const last = this.#lastAccepted.get(key);
    if (last !== undefined && now - last < this.#minIntervalMs) {
      return Math.max(1, Math.ceil((last + this.#minIntervalMs - now) / 1000));
    }
    this.#lastAccepted.set(key, now);
    return undefined;
  }
}
