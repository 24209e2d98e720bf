/**
 * At most one status poll per `intervalMs` per design, across commands (a shared ledger file,
 * and a claim of each design's next poll, so processes due at once poll once) and within a
 * process (polls of one design run one after another). A watcher (`follow`) that
 * finds the design polled by someone else takes that poll's answer, so sharing the limit never
 * makes it learn a change later than its own interval.
 */
import type { Clock } from "../core/clock.js";
import type { PollAnswer, PollClaim, PollLedger } from "./poll-ledger.js";

export type { PollAnswer, PollLedger } from "./poll-ledger.js";
export { createFilePollLedger, createMemoryPollLedger } from "./poll-ledger.js";

/** A live process's claim is broken after this long at least (a poll is one request). */
const CLAIM_STALE_MIN_MS = 30_000;

/** Where a ledger keeps no claims: the in-process chain alone orders the polls. */
const UNCLAIMED = { held: true, release: () => Promise.resolve() } as const;

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
  #intervalMs = 0;
  readonly #clock: Clock;
  readonly #ledger: PollLedger;
  /** Last poll per design seen by this process: a fallback when the ledger cannot be written. */
  readonly #lastPoll = new Map<string, number>();
  /** Last answer per design in this process (its watchers share it even without a ledger). */
  readonly #lastAnswer = new Map<string, PollAnswer>();
  /** Tail of the poll chain of each design, so two callers never poll one design at once. */
  readonly #chains = new Map<string, Promise<unknown>>();
  /** A poll time seen in the future per design, and when (monotonic). */
  readonly #futureSeen = new Map<string, { stamp: number; at: number }>();
  /** Another process's claim per design, and when this process first saw it (monotonic). */
  readonly #claimsSeen = new Map<string, { holder: string; at: number }>();

  constructor(options: PollSchedulerOptions) {
    this.intervalMs = options.intervalMs;
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
    if (elapsed >= 0) return Math.max(0, this.#intervalMs - elapsed);
    // A time in the future (clock set back, another machine's file) counts as made when this
    // process first saw it, on the monotonic clock: it holds polls back one interval, never more.
    let seen = this.#futureSeen.get(editorId);
    if (seen?.stamp !== last) {
      seen = { stamp: last, at: this.#clock.monotonic() };
      this.#futureSeen.set(editorId, seen);
    }
    return Math.max(0, seen.at + this.#intervalMs - this.#clock.monotonic());
  }

  /** Waits until `editorId` may be polled and no other process is polling it, runs `fn`, and records the time it finished. */
  poll<T>(editorId: string, fn: () => Promise<T>, options: { signal?: AbortSignal | undefined } = {}): Promise<T> {
    return this.#chained(editorId, async () => (await this.#turn(editorId, fn, options.signal)).value);
  }

  /**
   * A watcher of `editorId` that wants an answer every interval. Polls shared with others
   * (another folder on the same design, another process with another pollIntervalSec) count
   * only through their answers: when one arrived since this watcher's last, and within its
   * interval, `next` returns it instead of polling; else it polls once the limit allows and it
   * holds the design's claim (of several processes due at once, one polls, the others take its
   * answer). Without that, a watcher whose turn keeps being taken by another's poll learns a
   * new version one interval per watcher late. `accept` checks a shared answer (read from a
   * file: another process wrote it) and returns undefined to refuse it. `after`: answers from
   * that time or earlier never count (a wait for the end of a prompt's generation: an idle
   * answered before the prompt says nothing about it).
   */
  follow<T>(editorId: string, accept: (answer: unknown) => T | undefined, options: { after?: number } = {}): PollFollower<T> {
    /** The wall time of the last answer taken (to compare with answers others recorded). */
    let seenAt: number | undefined;
    /** When it was taken, on the monotonic clock: the wait for the next is measured on it, so a wall clock set back 2 h does not make it sleep 2 h. */
    let takenAt: number | undefined;
    const floor = options.after ?? Number.NEGATIVE_INFINITY;
    const takeShared = async (): Promise<T | undefined> => {
      const shared = await this.#answerOf(editorId);
      // An answer recorded "in the future" (the wall clock set back since, or another machine's
      // file) is never taken: a ledger that keeps the latest time would hand it back after every
      // poll of ours and name an old version again, pulling the folder back and forth.
      const age = shared === undefined ? -1 : this.#clock.now() - shared.at;
      if (shared === undefined || shared.at <= floor || age < 0 || age >= this.#intervalMs) return undefined;
      // Newer than the last one taken; after the wall clock went back, any other one is.
      const newer = seenAt === undefined || shared.at > seenAt || (seenAt > this.#clock.now() && shared.at !== seenAt);
      const value = newer ? accept(shared.answer) : undefined;
      if (value !== undefined) seenAt = shared.at;
      return value;
    };
    return {
      next: async (fetch, signal) => {
        if (takenAt !== undefined) {
          const wait = takenAt + this.#intervalMs - this.#clock.monotonic();
          if (wait > 0) await this.#clock.sleep(wait, signal);
        }
        const turn = await this.#chained(editorId, () => this.#turn(editorId, fetch, signal, takeShared));
        if (turn.polled) seenAt = this.#lastAnswer.get(editorId)?.at;
        takenAt = this.#clock.monotonic();
        return turn.value;
      },
    };
  }

  /**
   * One turn of a design's polls: a shared answer (`take`) when there is one, else wait for the
   * limit, claim the design's next poll, look again under the claim (another process may have
   * polled since), poll, release. A claim held by another process is waited on in short steps
   * (its answer ends the wait); one whose process died, or that outlived any poll, is broken
   * and counts as a poll made when it was claimed.
   */
  async #turn<T>(editorId: string, fetch: () => Promise<T>, signal?: AbortSignal, take?: () => Promise<T | undefined>): Promise<{ value: T; polled: boolean }> {
    for (;;) {
      signal?.throwIfAborted();
      const shared = await take?.();
      if (shared !== undefined) return { value: shared, polled: false };
      const delayMs = await this.delayUntilNextPoll(editorId);
      if (delayMs > 0) {
        await this.#clock.sleep(delayMs, signal);
        continue;
      }
      const claim = await this.#claim(editorId);
      if (claim === undefined) {
        await this.#clock.sleep(this.#claimStepMs(), signal);
        continue;
      }
      try {
        const late = await take?.();
        if (late !== undefined) return { value: late, polled: false };
        if ((await this.delayUntilNextPoll(editorId)) > 0) continue;
        return { value: await this.#pollNow(editorId, fetch, signal), polled: true };
      } finally {
        await claim.release();
      }
    }
  }

  /** The claim of `editorId`'s next poll, or undefined while another process holds it. */
  async #claim(editorId: string): Promise<{ release(): Promise<void> } | undefined> {
    let claim: PollClaim;
    try {
      claim = (await this.#ledger.claim?.(editorId, this.#clock.now())) ?? UNCLAIMED;
    } catch {
      return UNCLAIMED; // An unusable claims folder: polls go on as without one.
    }
    if (claim.held) {
      this.#claimsSeen.delete(editorId);
      return claim;
    }
    let seen = this.#claimsSeen.get(editorId);
    if (seen?.holder !== claim.holder) {
      seen = { holder: claim.holder, at: this.#clock.monotonic() };
      this.#claimsSeen.set(editorId, seen);
    }
    if (claim.alive && this.#clock.monotonic() - seen.at < this.#claimStaleMs()) return undefined;
    // Its process is gone, or it hung past any poll: its poll may have reached the service when it claimed.
    await this.#ledger.breakClaim?.(editorId, claim.holder).catch(() => undefined);
    this.#claimsSeen.delete(editorId);
    const last = await this.#lastPollOf(editorId);
    if (claim.since !== undefined && (last === undefined || claim.since > last)) await this.#record(editorId, claim.since);
    return undefined;
  }

  /** How long a live process may hold a claim: a poll takes one request, which never lasts this long. */
  #claimStaleMs(): number {
    return Math.max(this.#intervalMs, CLAIM_STALE_MIN_MS);
  }

  /** How often a claim held by another process is looked at again. */
  #claimStepMs(): number {
    return Math.min(Math.max(this.#intervalMs / 10, 5), 250);
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

  async #pollNow<T>(editorId: string, fn: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    signal?.throwIfAborted();
    let answered = false;
    let value: T | undefined;
    try {
      value = await fn();
      answered = true;
      return value;
    } finally {
      // Recorded when the poll finished, not when it started: the service counts arrivals,
      // and the next one then arrives at least a full interval after this one did. The answer
      // first (a failed poll's is null): whoever then reads this poll's time finds its answer.
      const at = this.#clock.now();
      await this.#recordAnswer(editorId, { at, answer: answered ? value : null });
      await this.#record(editorId, at);
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
