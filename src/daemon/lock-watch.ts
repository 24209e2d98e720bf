/**
 * Whether this process still holds a watched folder's lock, looked at on every status poll.
 * Two daemons on one folder is what the lock exists to prevent, so a lock gone stops the design.
 */
import { MpsyncError } from "../core/errors.js";

/** One folder's lock, as the status polls of its worker see it. */
export class LockWatch {
  readonly #label: string;
  readonly #lockHeld: (() => Promise<boolean>) | undefined;
  /** Status polls in a row that found the folder's lock gone (two stop the design). */
  #misses = 0;

  /** `lockHeld` undefined: nothing to look at (the lock is taken as held). */
  constructor(label: string, lockHeld: (() => Promise<boolean>) | undefined) {
    this.#label = label;
    this.#lockHeld = lockHeld;
  }

  /**
   * True when the lock is held; false on a first miss (this poll is skipped); throws
   * FOLDER_LOCKED on the second miss in a row.
   */
  async stillHeld(): Promise<boolean> {
    const held = this.#lockHeld === undefined || (await this.#lockHeld());
    this.#misses = held ? 0 : this.#misses + 1;
    // One look can land inside `rm -rf` of the whole folder (its .mpsync/ gone, the folder not
    // yet): a vanished folder is the breaker's case (halt and wait), so a second poll decides.
    if (this.#misses === 1) return false;
    if (!held) {
      // `.mpsync/` was removed (or the lock taken over): another process may now sync this
      // folder, and two daemons on one folder is what the lock exists to prevent.
      throw new MpsyncError("FOLDER_LOCKED", `the lock of ${this.#label} (.mpsync/lock) vanished or changed owner while mpsync ran`, {
        hint: "restart mpsync watch for this folder",
      });
    }
    return true;
  }
}
