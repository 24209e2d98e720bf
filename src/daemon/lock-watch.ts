/**
 * Whether the daemon still holds a folder's lock, asked at each status answer. One look can
 * land inside `rm -rf` of the whole folder (its .mpsync/ gone, the folder not yet): a vanished
 * folder is the breaker's case (halt and wait), so a second look in a row decides.
 */
import { MpsyncError } from "../core/errors.js";

/** The lock checks of one worker. */
export class LockWatch {
  readonly #held: (() => Promise<boolean>) | undefined;
  readonly #dir: string;
  /** Looks in a row that found the lock gone. */
  #misses = 0;

  constructor(held: (() => Promise<boolean>) | undefined, dir: string) {
    this.#held = held;
    this.#dir = dir;
  }

  /**
   * True when the lock is held; false after a first miss (look again at the next answer).
   * Throws FOLDER_LOCKED at the second miss in a row.
   */
  async check(): Promise<boolean> {
    const held = this.#held === undefined || (await this.#held());
    this.#misses = held ? 0 : this.#misses + 1;
    if (held || this.#misses === 1) return held;
    // `.mpsync/` was removed (or the lock taken over): another process may now sync this
    // folder, and two daemons on one folder is what the lock exists to prevent.
    throw new MpsyncError("FOLDER_LOCKED", `the lock of ${this.#dir} (.mpsync/lock) vanished or changed owner while mpsync ran`, {
      hint: "restart mpsync watch for this folder",
    });
  }
}
