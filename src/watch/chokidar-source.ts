/**
 * The local change source: chokidar events turned into debounced batches of relative paths.
 * A batch means "look at these paths again"; the engine re-reads and compares content hashes,
 * so echoes of its own writes, half-written files and duplicate events are harmless here.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { watch, type FSWatcher } from "chokidar";
import type { IgnoreMatcher } from "../local/ignore-rules.js";
import { DebouncedBatch } from "./debounced-batch.js";

/**
 * chokidar drops a second `change` of one path within 50 ms. The quiet window must be longer,
 * so a dropped change always happened before the batch is read and its content is seen.
 */
export const MIN_DEBOUNCE_MS = 60;

/** Options of createChangeSource. */
export interface ChangeSourceOptions {
  /** The mapped folder. */
  root: string;
  matcher: IgnoreMatcher;
  /** Quiet time before a batch is delivered (clamped to MIN_DEBOUNCE_MS). */
  debounceMs: number;
  /** Longest delay of a batch under a never-ending change stream. @default 10 * debounceMs */
  maxWaitMs?: number;
  /** Receives each batch of relative `/` paths (files, or a removed folder). */
  onBatch: (paths: Set<string>) => void;
  /** Watcher errors and exceptions thrown by onBatch. */
  onError: (err: unknown) => void;
  /**
   * How long chokidar holds an unlink to see whether the path is re-created (an editor's
   * save-by-rename then becomes one `change`). @default 100
   */
  atomicMs?: number;
}

/** A running watcher. */
export interface ChangeSource {
  /** Resolves once the initial tree is being watched (changes before it are not reported). */
  readonly ready: Promise<void>;
  /** Delivers the pending batch now (before a graceful shutdown). */
  flush(): void;
  /** Stops watching; pending changes are dropped (call flush() first to keep them). */
  close(): Promise<void>;
}

/** Watches `root` and reports changed paths in debounced batches. */
export function createChangeSource(options: ChangeSourceOptions): ChangeSource {
  const root = resolve(options.root);
  const toRel = (p: string): string | undefined => {
    const rel = relative(root, resolve(root, p));
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
    return sep === "/" ? rel : rel.split(sep).join("/");
  };
  const debounceMs = Math.max(options.debounceMs, MIN_DEBOUNCE_MS);
  const batch = new DebouncedBatch({
    debounceMs,
    maxWaitMs: Math.max(options.maxWaitMs ?? options.debounceMs * 10, debounceMs),
    onFlush: (paths) => {
      try {
        options.onBatch(paths);
      } catch (err) {
        options.onError(err);
      }
    },
  });
  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    atomic: options.atomicMs ?? 100,
    // No awaitWriteFinish: it delays every save by its threshold, and a half-written file only
    // costs a second batch once the write completes (the hash comparison sorts it out).
    awaitWriteFinish: false,
    ignorePermissionErrors: true,
    ignored: (p, stats) => {
      const rel = toRel(p);
      if (rel === undefined) return false;
      // Not even the link itself is watched: fs.watch on a link path follows it, so every
      // change in the target tree would come back as a change of the link. Scans report links.
      if (stats?.isSymbolicLink() === true) return true;
      // chokidar asks once without stats before it stats a path: only file rules can be
      // decided then; folder rules (`node_modules/`) apply on the call with stats, before
      // chokidar descends.
      return options.matcher.ignores(rel, stats?.isDirectory() ?? false);
    },
  });
  const onPath = (p: string): void => {
    const rel = toRel(p);
    if (rel !== undefined) batch.add(rel);
  };
  watcher.on("add", onPath);
  watcher.on("change", onPath);
  watcher.on("unlink", onPath);
  // chokidar also emits `unlink` for each file it knew under a removed folder; the folder
  // itself is added so the engine rescans what it remembered there.
  watcher.on("unlinkDir", onPath);
  watcher.on("error", (err) => options.onError(err));
  const ready = new Promise<void>((resolveReady) => watcher.once("ready", () => resolveReady()));
  return {
    ready,
    flush: () => batch.flush(),
    close: async () => {
      batch.close();
      await watcher.close();
    },
  };
}
