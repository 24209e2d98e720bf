/**
 * At most one status poll per `intervalMs` per design, across commands (a shared ledger file)
 * and within a process (polls of one design run one after another).
 */
import type { Clock } from "../core/clock.js";
import type { PollLedger } from "./poll-ledger.js";

export type { PollLedger } from "./poll-ledger.js";
export { createFilePollLedger, createMemoryPollLedger } from "./poll-ledger.js";

/** Options of PollScheduler. */
export interface PollSchedulerOptions {
  /** Minimum time between two polls of one design (README, "Configuration": `pollIntervalSec`). */
  intervalMs: number;
  clock: Clock;
  ledger: PollLedger;
}

/** Spaces the status polls of each design. */
export class PollScheduler {
  #intervalMs: number;
  readonly #clock: Clock;
  readonly #ledger: PollLedger;
  /** Last poll per design seen by this process: a fallback when the ledger cannot be written. */
  readonly #lastPoll = new Map<string, number>();
  /** Tail of the poll chain of each design, so two callers never poll one design at once. */
  readonly #chains = new Map<string, Promise<unknown>>();

  constructor(options: PollSchedulerOptions) {
    if (!Number.isFinite(options.intervalMs) || options.intervalMs < 0) {
      throw new TypeError(`intervalMs must be a finite number >= 0, got ${String(options.intervalMs)}`);
    }
    this.#intervalMs = options.intervalMs;
    this.#clock = options.clock;
    this.#ledger = options.ledger;
  }

  /** Minimum time between two polls of one design; set by a reload of .syncrc. */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  set intervalMs(value: number) {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`intervalMs must be a finite number >= 0, got ${String(value)}`);
    this.#intervalMs = value;
  }

  /** Milliseconds to wait before `editorId` may be polled again (0: now). */
  async delayUntilNextPoll(editorId: string): Promise<number> {
    const last = await this.#lastPollOf(editorId);
    if (last === undefined) return 0;
    const elapsed = this.#clock.now() - last;
    // A time in the future (clock moved back, another machine's file) still waits one interval, never more.
    if (elapsed < 0) return this.#intervalMs;
    return Math.max(0, this.#intervalMs - elapsed);
  }

  /** Waits until `editorId` may be polled, runs `fn`, and records the time it finished. */
  poll<T>(editorId: string, fn: () => Promise<T>, options: { signal?: AbortSignal | undefined } = {}): Promise<T> {
    const previous = this.#chains.get(editorId) ?? Promise.resolve();
    const run = previous.then(() => this.#pollNow(editorId, fn, options.signal));
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#chains.set(editorId, tail);
    void tail.then(() => {
      if (this.#chains.get(editorId) === tail) this.#chains.delete(editorId);
    });
    return run;
  }

  async #pollNow<T>(editorId: string, fn: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    signal?.throwIfAborted();
    const delayMs = await this.delayUntilNextPoll(editorId);
    if (delayMs > 0) await this.#clock.sleep(delayMs, signal);
    signal?.throwIfAborted();
    try {
      return await fn();
    } finally {
      // Recorded when the poll finished, not when it started: the service counts arrivals,
      // and the next one then arrives at least a full interval after this one did.
      await this.#record(editorId, this.#clock.now());
    }
  }

  async #lastPollOf(editorId: string): Promise<number | undefined> {
    const local = this.#lastPoll.get(editorId);
    let stored: number | undefined;
    try {
      stored = await this.#ledger.get(editorId);
    } catch {
      stored = undefined;
    }
    if (local === undefined) return stored;
    return stored === undefined ? local : Math.max(local, stored);
  }

  async #record(editorId: string, epochMs: number): Promise<void> {
    this.#lastPoll.set(editorId, epochMs);
    try {
      await this.#ledger.set(editorId, epochMs);
    } catch {
      // An unwritable ledger only loses the cross-process memory; this process still spaces its polls.
    }
  }
}
