/**
 * One p-queue per API key: `concurrency` HTTP attempts in flight, and a 429 pauses the key's
 * whole queue for the Retry-After so no other request walks into the same limit.
 */
import PQueue from "p-queue";
import { createSystemClock, type Clock } from "../core/clock.js";
import { hashApiKey } from "./key-hash.js";

/** Emitted when a queue pauses (or extends a pause) after a 429. */
export interface RateLimitedEvent {
  /** sha256 of the API key (never the key). */
  keyHash: string | undefined;
  /** How long the queue stays paused from now. */
  delayMs: number;
  /** Epoch milliseconds at which it resumes. */
  until: number;
}

/** Listener of rate-limit pauses; the daemon turns it into its `rate_limited` event. */
export type RateLimitedListener = (event: RateLimitedEvent) => void;

/** A concurrency-limited, pausable queue of HTTP attempts. */
export interface RequestQueue {
  /** Runs `task` when a slot is free and the queue is not paused; rejects with the signal's reason when aborted. */
  run<T>(task: () => Promise<T>, options?: { signal?: AbortSignal | undefined }): Promise<T>;
  /** Holds every queued task for `ms` (running ones finish); a shorter pause never shortens a longer one. */
  pauseFor(ms: number): void;
  /** Subscribes to pauses; returns the unsubscribe function. */
  onRateLimited(listener: RateLimitedListener): () => void;
  /** Tasks waiting for a slot. */
  readonly size: number;
  /** Tasks running. */
  readonly pending: number;
  readonly isPaused: boolean;
  /** Epoch milliseconds at which a pause ends, undefined when not paused. */
  readonly pausedUntil: number | undefined;
  /** Maximum tasks in flight. */
  concurrency: number;
}

/** Options of createRequestQueue. */
export interface RequestQueueOptions {
  /** Requests in flight. @default 4 */
  concurrency?: number;
  /** Time source of pauses. @default the system clock */
  clock?: Clock;
  /** Reported in RateLimitedEvent. @default undefined */
  keyHash?: string;
}

/** Default requests in flight per API key (README, "Configuration": `concurrency`). */
export const DEFAULT_CONCURRENCY = 4;

function validateConcurrency(concurrency: number): number {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency must be an integer >= 1, got ${String(concurrency)}`);
  }
  return concurrency;
}

class PQueueRequestQueue implements RequestQueue {
  readonly #queue: PQueue;
  readonly #clock: Clock;
  readonly #keyHash: string | undefined;
  readonly #listeners = new Set<RateLimitedListener>();
  #pausedUntil: number | undefined;
  #resume: AbortController | undefined;

  constructor(options: RequestQueueOptions) {
    this.#queue = new PQueue({ concurrency: validateConcurrency(options.concurrency ?? DEFAULT_CONCURRENCY) });
    this.#clock = options.clock ?? createSystemClock();
    this.#keyHash = options.keyHash;
  }

  run<T>(task: () => Promise<T>, options: { signal?: AbortSignal | undefined } = {}): Promise<T> {
    return this.#queue.add(task, options.signal === undefined ? {} : { signal: options.signal });
  }

  pauseFor(ms: number): void {
    const delayMs = Math.max(0, Math.ceil(ms));
    const until = this.#clock.now() + delayMs;
    if (this.#pausedUntil !== undefined && until <= this.#pausedUntil) return;
    this.#pausedUntil = until;
    this.#queue.pause();
    this.#resume?.abort();
    const resume = new AbortController();
    this.#resume = resume;
    this.#clock.sleep(delayMs, resume.signal).then(
      () => {
        if (this.#resume !== resume) return;
        this.#resume = undefined;
        this.#pausedUntil = undefined;
        this.#queue.start();
      },
      // Aborted: a longer pause replaced this one and owns the resume.
      () => undefined,
    );
    this.#emit({ keyHash: this.#keyHash, delayMs, until });
  }

  onRateLimited(listener: RateLimitedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: RateLimitedEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A faulty listener must not break the request path.
      }
    }
  }

  get size(): number {
    return this.#queue.size;
  }

  get pending(): number {
    return this.#queue.pending;
  }

  get isPaused(): boolean {
    return this.#queue.isPaused;
  }

  get pausedUntil(): number | undefined {
    return this.#pausedUntil;
  }

  get concurrency(): number {
    return this.#queue.concurrency;
  }

  set concurrency(value: number) {
    this.#queue.concurrency = validateConcurrency(value);
  }
}

/** Creates a standalone queue (the client's private one when none is given). */
export function createRequestQueue(options: RequestQueueOptions = {}): RequestQueue {
  return new PQueueRequestQueue(options);
}

/** Options of RequestQueueRegistry. */
export interface RequestQueueRegistryOptions {
  /** Time source of pauses. @default the system clock */
  clock?: Clock;
}

/** One queue per API key, created in the composition root (never module state). */
export class RequestQueueRegistry {
  readonly #queues = new Map<string, RequestQueue>();
  readonly #clock: Clock;

  constructor(options: RequestQueueRegistryOptions = {}) {
    this.#clock = options.clock ?? createSystemClock();
  }

  /** The queue of `apiKey`, created on first use; a later call updates its concurrency. */
  forKey(apiKey: string, concurrency: number = DEFAULT_CONCURRENCY): RequestQueue {
    const keyHash = hashApiKey(apiKey);
    const existing = this.#queues.get(keyHash);
    if (existing !== undefined) {
      existing.concurrency = concurrency;
      return existing;
    }
    const queue = createRequestQueue({ concurrency, clock: this.#clock, keyHash });
    this.#queues.set(keyHash, queue);
    return queue;
  }
}
