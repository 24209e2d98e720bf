/**
 * At most one status poll per `intervalMs` per design, across commands (a shared ledger file)
 * and within a process (polls of one design run one after another). A watcher (`follow`) that
 * finds the design polled by someone else takes that poll's answer, so sharing the limit never
 * makes it learn a change later than its own interval.
 */
import type { Clock } from "../core/clock.js";
import type { PollAnswer, PollLedger } from "./poll-ledger.js";

export type { PollAnswer, PollLedger } from "./poll-ledger.js";
export { createFilePollLedger, createMemoryPollLedger } from "./poll-ledger.js";

/** Options of PollScheduler. */
export interface PollSchedulerOptions {
  /** Minimum time between two polls of one design (README, "Configuration": `pollIntervalSec`). */
  intervalMs: number;
  clock: Clock;
  ledger: PollLedger;
}

/** One watcher of a design (a daemon's folder, a wait for idle): see `PollScheduler.follow`. */
export interface PollFollower<T> {
  /** The next answer: at most one interval after the last one this watcher got, never sooner. */
  next(fetch: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** Spaces the status polls of each design. */
export class PollScheduler {
  #intervalMs: number;
  readonly #clock: Clock;
  readonly #ledger: PollLedger;
  /** Last poll per design seen by this process: a fallback when the ledger cannot be written. */
  readonly #lastPoll = new Map<string, number>();
  /** Last answer per design in this process (its watchers share it even without a ledger). */
  readonly #lastAnswer = new Map<string, PollAnswer>();
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
    return this.#chained(editorId, () => this.#pollNow(editorId, fn, options.signal));
  }

  /**
   * A watcher of `editorId` that wants an answer every interval. Polls shared with others
   * (another folder on the same design, another process with another pollIntervalSec) count
   * only through their answers: when one arrived since this watcher's last, and within its
   * interval, `next` returns it instead of polling; else it polls once the limit allows.
   * Without that, a watcher whose turn keeps being taken by another's poll learns a new version
   * one interval per watcher late. `accept` checks a shared answer (read from a file: another
   * process wrote it) and returns undefined to refuse it. `after`: answers from that time or
   * earlier never count (a wait for the end of a prompt's generation: an idle answered before
   * the prompt says nothing about it).
   */
  follow<T>(editorId: string, accept: (answer: unknown) => T | undefined, options: { after?: number } = {}): PollFollower<T> {
    /** The wall time of the last answer taken (to compare with answers others recorded). */
    let seenAt: number | undefined;
    /** When it was taken, on the monotonic clock: the wait for the next is measured on it, so a wall clock set back 2 h does not make it sleep 2 h. */
    let takenAt: number | undefined;
    const floor = options.after ?? Number.NEGATIVE_INFINITY;
    return {
      next: async (fetch, signal) => {
        if (takenAt !== undefined) {
          const wait = takenAt + this.#intervalMs - this.#clock.monotonic();
          if (wait > 0) await this.#clock.sleep(wait, signal);
        }
        return this.#chained(editorId, async () => {
          // One wait at most: a poll time in the future (a wall clock set back) keeps asking for one more interval.
          let waited = false;
          for (;;) {
            signal?.throwIfAborted();
            const shared = await this.#answerOf(editorId);
            // An answer recorded "in the future" (the wall clock set back since, or another
            // machine's file) is never fresh: the ledger keeps the latest time, so it would come
            // back after every poll of ours and name an old version again (a pull back and forth).
            const age = shared === undefined ? -1 : this.#clock.now() - shared.at;
            const fresh = shared !== undefined && shared.at > Math.max(seenAt ?? floor, floor) && age >= 0 && age < this.#intervalMs;
            const value = fresh ? accept(shared.answer) : undefined;
            if (fresh && value !== undefined) {
              seenAt = shared.at;
              takenAt = this.#clock.monotonic();
              return value;
            }
            const delayMs = waited ? 0 : await this.delayUntilNextPoll(editorId);
            if (delayMs === 0) break;
            // Another poll may land meanwhile: its answer ends the wait (checked above).
            await this.#clock.sleep(delayMs, signal);
            waited = true;
          }
          const value = await this.#pollNow(editorId, fetch, signal, waited);
          seenAt = this.#lastAnswer.get(editorId)?.at;
          takenAt = this.#clock.monotonic();
          return value;
        });
      },
    };
  }

  #chained<T>(editorId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#chains.get(editorId) ?? Promise.resolve();
    const run = previous.then(work);
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

  /** `waited`: the caller already waited out the limit once (do not wait a second interval). */
  async #pollNow<T>(editorId: string, fn: () => Promise<T>, signal: AbortSignal | undefined, waited = false): Promise<T> {
    signal?.throwIfAborted();
    const delayMs = waited ? 0 : await this.delayUntilNextPoll(editorId);
    if (delayMs > 0) await this.#clock.sleep(delayMs, signal);
    signal?.throwIfAborted();
    let answered = false;
    let value: T | undefined;
    try {
      value = await fn();
      answered = true;
      return value;
    } finally {
      // Recorded when the poll finished, not when it started: the service counts arrivals,
      // and the next one then arrives at least a full interval after this one did.
      const at = this.#clock.now();
      await this.#record(editorId, at);
      if (answered) await this.#recordAnswer(editorId, { at, answer: value });
    }
  }

  async #answerOf(editorId: string): Promise<PollAnswer | undefined> {
    const local = this.#lastAnswer.get(editorId);
    const stored = await this.#ledger.getAnswer?.(editorId).catch(() => undefined);
    if (stored === undefined || (local !== undefined && local.at >= stored.at)) return local;
    return stored;
  }

  async #recordAnswer(editorId: string, answer: PollAnswer): Promise<void> {
    this.#lastAnswer.set(editorId, answer);
    try {
      await this.#ledger.setAnswer?.(editorId, answer);
    } catch {
      // Unwritable: this process's watchers still share the answer.
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
