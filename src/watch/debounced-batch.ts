/**
 * Trailing debounce with a max wait, over a set of keys: everything added during one quiet
 * window is delivered as ONE batch (one PATCH), and a change stream that never goes quiet is
 * still flushed every `maxWaitMs`. Pure timer logic: timers are injectable for unit tests.
 */

/** The timer functions the batcher uses (defaults: the globals). */
export interface BatchTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

/** Options of a DebouncedBatch. */
export interface DebouncedBatchOptions {
  /** Quiet time after the last add before the batch is delivered. */
  debounceMs: number;
  /** Longest time from the first add of a batch to its delivery. @default 10 * debounceMs */
  maxWaitMs?: number;
  /** Receives each non-empty batch; the set is the caller's to keep. */
  onFlush: (items: Set<string>) => void;
  /** Told when a batch begins (its first key), while its quiet window runs. */
  onStart?: () => void;
  timers?: BatchTimers;
}

const SYSTEM_TIMERS: BatchTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  // Monotonic: a wall clock stepped back must not hold a batch past its max wait.
  now: () => performance.now(),
};

/** Collects keys and delivers them in debounced batches. */
export class DebouncedBatch {
  readonly #debounceMs: number;
  readonly #maxWaitMs: number;
  readonly #onFlush: (items: Set<string>) => void;
  readonly #onStart: (() => void) | undefined;
  readonly #timers: BatchTimers;
  #items = new Set<string>();
  #firstAt = 0;
  #timer: unknown = undefined;
  #closed = false;

  constructor(options: DebouncedBatchOptions) {
    if (!(options.debounceMs >= 0)) throw new RangeError(`debounceMs must be >= 0, got ${options.debounceMs}`);
    const maxWait = options.maxWaitMs ?? options.debounceMs * 10;
    if (!(maxWait >= options.debounceMs)) throw new RangeError(`maxWaitMs (${maxWait}) must be >= debounceMs (${options.debounceMs})`);
    this.#debounceMs = options.debounceMs;
    this.#maxWaitMs = maxWait;
    this.#onFlush = options.onFlush;
    this.#onStart = options.onStart;
    this.#timers = options.timers ?? SYSTEM_TIMERS;
  }

  /** Keys waiting for the next flush. */
  get pending(): number {
    return this.#items.size;
  }

  /** Adds a key and restarts the quiet window (never past the max wait). */
  add(item: string): void {
    if (this.#closed) return;
    const now = this.#timers.now();
    const starts = this.#items.size === 0;
    if (starts) this.#firstAt = now;
    this.#items.add(item);
    if (starts) this.#onStart?.();
    const untilMax = this.#firstAt + this.#maxWaitMs - now;
    this.#schedule(Math.max(0, Math.min(this.#debounceMs, untilMax)));
  }

  /** Delivers the pending batch now (e.g. on SIGTERM before exiting). */
  flush(): void {
    this.#cancelTimer();
    if (this.#items.size === 0) return;
    const batch = this.#items;
    // Swap before calling out: an add from inside onFlush starts the next batch.
    this.#items = new Set();
    this.#onFlush(batch);
  }

  /** Drops pending keys and stops accepting new ones. */
  close(): void {
    this.#closed = true;
    this.#cancelTimer();
    this.#items.clear();
  }

  #schedule(ms: number): void {
    this.#cancelTimer();
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, ms);
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
