/**
 * Remembers the hash of each file together with the stat data it was read under, so a scan of
 * an unchanged tree is one lstat per file. Serialisable (toJSON) so state.json can persist it
 * across restarts.
 */

/** What the cache stores per path. */
export interface ScanCacheEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
  binary: boolean;
  hasMarkers: boolean;
}

/** The stat fields an entry must match to be trusted. */
export interface StatKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** The persisted form: path -> entry. */
export type ScanCacheData = Record<string, ScanCacheEntry>;

/**
 * A file modified this close to the moment it was read may change again within the same
 * timestamp tick (2 s on FAT, 1 s on HFS+) without its stat data changing: git's "racily
 * clean" problem. Such reads are not cached, so the next scan reads the file again.
 */
export const RACY_WINDOW_MS = 2_000;

/** Per-path hash cache keyed by (size, mtime, ctime, inode). */
export class ScanCache {
  #entries: Map<string, ScanCacheEntry>;

  constructor(data: ScanCacheData = {}) {
    this.#entries = new Map(Object.entries(data));
  }

  /** Number of cached paths. */
  get size(): number {
    return this.#entries.size;
  }

  /** The cached entry for `rel` when its stat data still matches `st`. */
  lookup(rel: string, st: StatKey): ScanCacheEntry | undefined {
    const e = this.#entries.get(rel);
    if (e === undefined) return undefined;
    const same = e.size === st.size && e.mtimeMs === st.mtimeMs && e.ctimeMs === st.ctimeMs && e.ino === st.ino;
    return same ? e : undefined;
  }

  /** Records a read that started at `readStartedAtMs`; racy reads are forgotten instead. */
  remember(rel: string, entry: ScanCacheEntry, readStartedAtMs: number): void {
    // mtime alone decides: a later content write always moves mtime past a tick that had
    // already ended when the read started. ctime (in the key) still catches `touch -d` games.
    if (readStartedAtMs - entry.mtimeMs < RACY_WINDOW_MS) this.#entries.delete(rel);
    else this.#entries.set(rel, { ...entry });
  }

  /** Drops `rel`. */
  forget(rel: string): void {
    this.#entries.delete(rel);
  }

  /** Drops every path not in `keep` (after a full scan: vanished files). */
  retainOnly(keep: ReadonlySet<string>): void {
    for (const rel of [...this.#entries.keys()]) if (!keep.has(rel)) this.#entries.delete(rel);
  }

  /** The persisted form. */
  toJSON(): ScanCacheData {
    return Object.fromEntries(this.#entries);
  }
}
