/**
 * Which files a daemon's content check reads. In-place remote edits (the web
 * editor's code view, a teammate's PATCH) move no version, so only reading the contents finds
 * them; reading every file of an idle design every `remoteCheckSec` costs a large design a
 * steady stream of downloads. Edits almost always touch the files someone is working on, so a check reads
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

/**
 * The recently changed files and when each file was last read, for one folder. The cold files a
 * check reads are those read longest ago (never read: first), so with ceil(n / CHECK_SWEEP_ROUNDS)
 * of them per check every file is read within CHECK_SWEEP_ROUNDS completed checks, however files
 * come and go or turn recent; a check that failed reads nothing (`read` is not called) and the
 * next one reads the same files.
 */
export class CheckScope {
  readonly #recent = new Map<string, number>();
  /** path -> the number of completed reads (`read` calls) when it was last read. */
  readonly #readAt = new Map<string, number>();
  #reads = 0;
  #seeded = false;

  /** `paths` changed (either side) at `now` (monotonic ms); more than RECENT_MAX_PER_CYCLE: none. */
  touch(paths: readonly string[], now: number): void {
    if (paths.length > RECENT_MAX_PER_CYCLE) return;
    for (const p of paths) this.#recent.set(p, now);
  }

  /** True until the run's first `seed` (later checks need not gather modification times). */
  get needsSeed(): boolean {
    return !this.#seeded;
  }

  /**
   * A daemon starts with no memory of what changed: its first check takes as recent the synced
   * files modified on disk (a save here, or a pull's write) within RECENT_MS before `wallNow`,
   * so a restart does not leave the file someone works on to the sweep. More than
   * RECENT_MAX_PER_CYCLE (a checkout touched everything): none, as in `touch`. Once per scope.
   */
  seed(mtimes: Iterable<[path: string, mtimeMs: number]>, wallNow: number, now: number): void {
    if (!this.needsSeed) return;
    this.#seeded = true;
    const recent: Array<[string, number]> = [];
    for (const [p, mtime] of mtimes) {
      // A modification time ahead of the wall clock (the clock went back) counts as now.
      const age = Math.max(0, wallNow - mtime);
      if (age <= RECENT_MS) recent.push([p, now - age]);
    }
    if (recent.length > RECENT_MAX_PER_CYCLE) return;
    for (const [p, at] of recent) if (!this.#recent.has(p)) this.#recent.set(p, at);
  }

  /** The paths of `known` (every synced path) the next check reads: the recent ones and the cold ones read longest ago. */
  next(known: readonly string[], now: number): Set<string> {
    const out = new Set<string>();
    for (const [p, at] of this.#recent) {
      if (now - at > RECENT_MS) this.#recent.delete(p);
      else out.add(p);
    }
    const cold = known.filter((p) => !out.has(p));
    if (cold.length === 0) return out;
    const age = (p: string): number => this.#readAt.get(p) ?? -1;
    cold.sort((a, b) => age(a) - age(b) || (a < b ? -1 : a > b ? 1 : 0));
    const slice = Math.ceil(cold.length / CHECK_SWEEP_ROUNDS);
    for (const p of cold.slice(0, slice)) out.add(p);
    return out;
  }

  /** A check or a full sync read `paths`: they count as read now. Forgets paths no longer in `known`. */
  read(paths: Iterable<string>, known: readonly string[]): void {
    this.#reads += 1;
    for (const p of paths) this.#readAt.set(p, this.#reads);
    if (this.#readAt.size > known.length) {
      const keep = new Set(known);
      for (const p of this.#readAt.keys()) if (!keep.has(p)) this.#readAt.delete(p);
    }
  }
}
