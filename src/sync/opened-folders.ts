/**
 * The folders one process opened, so Ctrl-C during a command that writes (pull, init) can stop
 * them all: no new write starts, those in flight end, and the temp files left are removed.
 */
import type { Clock } from "../core/clock.js";
import type { FsFolder } from "./fs-adapters.js";

/** How long an interrupt waits for the writes in flight before sweeping temp files anyway. */
export const INTERRUPT_WAIT_MS = 2000;

/** Every folder a process opened (`Runtime.interrupt` stops their writes). */
export class OpenedFolders {
  readonly #folders = new Set<FsFolder>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Counts `folder` among those an interrupt stops. */
  add(folder: FsFolder): void {
    this.#folders.add(folder);
  }

  /**
   * Stops every folder's writes between files, waits (at most `maxWaitMs`) for the writes in
   * flight, and removes the temp files left in those folders. Resolves how many were removed.
   */
  async interrupt(maxWaitMs = INTERRUPT_WAIT_MS): Promise<number> {
    const folders = [...this.#folders];
    const late = new AbortController();
    const cleaned = await Promise.race([
      Promise.all(folders.map((f) => f.interrupt())),
      this.#clock.sleep(maxWaitMs, late.signal).then(
        () => undefined,
        () => undefined,
      ),
    ]);
    late.abort();
    // A write stuck in the kernel past the wait: remove the temp files anyway; it fails (or its temp file is removed) at exit.
    const removed = cleaned ?? (await Promise.all(folders.map((f) => f.local.removeStaleTemps())));
    return removed.flat().length;
  }
}
