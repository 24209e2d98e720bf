/**
 * Lets a command stop a folder's writes between files (Ctrl-C during `pull` or `init`): once
 * closed no new write starts, and `close` resolves when the writes in flight have ended (each
 * removes or publishes its own temp file), so nothing half-made stays in the user's folder.
 */
import { MpsyncError } from "../core/errors.js";

/** A gate every local write of one folder passes. */
export class WriteGate {
  #closed = false;
  #inFlight = 0;
  #waiters: (() => void)[] = [];

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `write` unless the gate is closed (then INTERRUPTED, and nothing is touched). */
  async run<T>(write: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new MpsyncError("INTERRUPTED", "interrupted: no further files are written");
    this.#inFlight += 1;
    try {
      return await write();
    } finally {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const wake of this.#waiters.splice(0)) wake();
    }
  }

  /** Lets no new write start; resolves once those in flight ended. */
  close(): Promise<void> {
    this.#closed = true;
    return this.#inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
}
