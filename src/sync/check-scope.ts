/**
 * Which files a daemon's content check reads. In-place remote edits (the web
 * editor's code view, a teammate's PATCH) move no version, so only reading the contents finds
 * them; reading every file of an idle design every `remoteCheckSec` cost a 2,000-file design
 * 8 MB a minute. Edits almost always touch the files someone is working on, so a check reads
 * the files changed on either side in the last RECENT_MS, plus the next slice of the others:
 * every file is read at least once every CHECK_SWEEP_ROUNDS checks. Before any push its paths
 * are read anyway, so a slower sweep never lets a push overwrite an unread edit.
 */

/** How long a file counts as recently changed (pushed, pulled, merged or saved here). */
export const RECENT_MS = 60 * 60 * 1000;

/** Every file is read by at least one of this many consecutive checks. */
export const CHECK_SWEEP_ROUNDS = 10;

/**
 * A cycle that changed more files than this (a first pull, a new version of the whole design)
 * marks none of them recent: someone works on a few files, and the sweep covers the rest.
 */
export const RECENT_MAX_PER_CYCLE = 100;

/** The recently changed files and the sweep's place, for one folder. */
export class CheckScope {
  readonly #recent = new Map<string, number>();
  #cursor = 0;

  /** `paths` changed (either side) at `now` (monotonic ms); more than RECENT_MAX_PER_CYCLE: none. */
  touch(paths: readonly string[], now: number): void {
    if (paths.length > RECENT_MAX_PER_CYCLE) return;
    for (const p of paths) this.#recent.set(p, now);
  }

  /**
   * The paths of `known` (every synced path) the next check reads: the recent ones and the
   * next sweep slice of the rest, in a stable order. Moves the sweep on.
   */
  next(known: readonly string[], now: number): Set<string> {
    const out = new Set<string>();
    for (const [p, at] of this.#recent) {
      if (now - at > RECENT_MS) this.#recent.delete(p);
      else out.add(p);
    }
    const cold = known.filter((p) => !out.has(p)).sort();
    if (cold.length === 0) return out;
    const slice = Math.ceil(cold.length / CHECK_SWEEP_ROUNDS);
    const start = this.#cursor % cold.length;
    for (let i = 0; i < slice; i += 1) out.add(cold[(start + i) % cold.length]!);
    this.#cursor = start + slice;
    return out;
  }
}
