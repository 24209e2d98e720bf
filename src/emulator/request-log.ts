/** The log of `/api` requests the emulator answered, with waiters for tests. Never holds a key. */
import type { RequestLogEntry, WaitForRequestOptions } from "./types.js";

/** Matches log entries. */
export type RequestPredicate = (entry: RequestLogEntry) => boolean;

interface Waiter {
  predicate: RequestPredicate;
  resolve: (entry: RequestLogEntry) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

const DEFAULT_WAIT_TIMEOUT_MS = 5000;

/** An append-only request log with promise-based waiting. */
export class RequestLog {
  #entries: RequestLogEntry[] = [];
  readonly #waiters = new Set<Waiter>();

  /** Appends an entry and wakes the waiters it satisfies. */
  add(entry: RequestLogEntry): void {
    this.#entries.push(entry);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.predicate(entry)) continue;
      this.#settle(waiter);
      waiter.resolve(entry);
    }
  }

  /** A copy of the entries, oldest first. */
  entries(): RequestLogEntry[] {
    return this.#entries.map((e) => ({ ...e }));
  }

  /** How many logged requests match. */
  count(predicate: RequestPredicate = () => true): number {
    return this.#entries.filter(predicate).length;
  }

  /** Empties the log (pending waiters keep waiting). */
  reset(): void {
    this.#entries = [];
  }

  /** Resolves with the first matching request (past ones too with `includePast`), or rejects on timeout. */
  waitFor(predicate: RequestPredicate, options: WaitForRequestOptions = {}): Promise<RequestLogEntry> {
    if (options.includePast === true) {
      const past = this.#entries.find(predicate);
      if (past !== undefined) return Promise.resolve({ ...past });
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#settle(waiter);
          reject(new Error(`No matching request within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Rejects every pending waiter (the emulator is closing). */
  close(): void {
    for (const waiter of [...this.#waiters]) {
      this.#settle(waiter);
      waiter.reject(new Error("Emulator closed while waiting for a request"));
    }
  }

  #settle(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    this.#waiters.delete(waiter);
  }
}
