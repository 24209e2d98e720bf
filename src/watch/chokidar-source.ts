/**
 * The local change source: chokidar events turned into debounced batches of relative paths.
 * A batch means "look at these paths again"; the engine re-reads and compares content hashes,
 * so echoes of its own writes, half-written files and duplicate events are harmless here.
 */
import { existsSync, lstatSync, watch, type FSWatcher as FSWatcherHandle } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { FSWatcher } from "chokidar";
import { errnoCode } from "../core/errors.js";
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
  /** Told when a batch begins, while the debounce runs (the daemon warms its connection). */
  onActivity?: () => void;
  /** Told each path the ignore rules let through, at once, not debounced (`mpsync dev`'s preview). */
  onPath?: ((rel: string) => void) | undefined;
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
  let closed = false;
  const deliver = (paths: Set<string>): void => {
    if (closed || paths.size === 0) return;
    try {
      options.onBatch(paths);
    } catch (err) {
      options.onError(err);
    }
  };
  /** Folders created since the last batch (absolute): their files are listed at delivery. */
  const newDirs = new Set<string>();
  const batch = new DebouncedBatch({
    debounceMs,
    ...(options.onActivity === undefined ? {} : { onStart: options.onActivity }),
    maxWaitMs: Math.max(options.maxWaitMs ?? options.debounceMs * 10, debounceMs),
    onFlush: (paths) => {
      if (newDirs.size === 0) return deliver(paths);
      // Listed after the quiet window, by which time chokidar watches the new folders: a file
      // written before a folder's watch began is found here, any later write as a raw event.
      const dirs = [...newDirs];
      newDirs.clear();
      for (const d of dirs) paths.delete(toRel(d) ?? "");
      void Promise.all(dirs.map((d) => listFiles(d, (abs) => options.matcher.ignores(toRel(abs) ?? "", true)))).then((lists) => {
        for (const f of lists.flat()) add(toRel(f), "file", paths);
        deliver(paths);
      });
    },
  });
  // chokidar keeps the folder tree (which folders exist, appear and go); each folder's files are
  // watched through that folder's own fs.watch (a file's save is an event of its folder's inotify
  // watch, named relative to it): a watch per file costs an inotify watch, start-up time and memory
  // for every file of a large folder (BENCHMARKS.md, "Figures behind the code's choices"). libuv shares one inotify watch between every
  // handle on a folder, so chokidar's watch and ours are one kernel watch.
  const watcher = new FSWatcher({
    // Every folder comes as `addDir`: before `ready` it is the initial tree (watched, not
    // reported), after it a new folder.
    ignoreInitial: false,
    followSymlinks: false,
    atomic: options.atomicMs ?? 100,
    // No awaitWriteFinish: it delays every save by its threshold, and a half-written file only
    // costs a second batch once the write completes (the hash comparison sorts it out).
    awaitWriteFinish: false,
    ignorePermissionErrors: true,
    ignored: (p, stats) => {
      // chokidar asks once without stats before it stats a path, then again with them: the
      // rules are matched only then, for folders (a file is dropped unmatched), so a start
      // matches each folder once and no file.
      if (stats === undefined) return false;
      const rel = toRel(p);
      if (rel === undefined) return false;
      // Not a folder: not walked into, not watched by chokidar. Links are never followed
      // either: fs.watch on a link follows it, so the target tree's changes would come back as the link's.
      if (!stats.isDirectory()) return true;
      return options.matcher.ignores(rel, true);
    },
  });
  /**
   * Adds `rel` to the batch (or `into`) unless the ignore rules drop it. A name that is gone
   * may have been a file or a folder, so folder-only rules (`dist/`) drop it too.
   */
  const add = (rel: string | undefined, what: "file" | "folder" | "gone", into?: Set<string>): void => {
    if (rel === undefined) return;
    const { matcher } = options;
    if (what === "gone" ? matcher.ignores(rel, false) || matcher.ignores(rel, true) : matcher.ignores(rel, what === "folder")) return;
    if (what !== "folder" && options.onPath !== undefined) {
      try {
        options.onPath(rel);
      } catch (err) {
        options.onError(err);
      }
    }
    if (into === undefined) batch.add(rel);
    else into.add(rel);
  };
  const folders = new FolderWatches((dir, name) => {
    // An event about the watched folder itself carries its own base name (libuv); a removed
    // folder is reported by `unlinkDir` below.
    if (name === basename(dir) && !existsSync(dir)) return;
    const abs = join(dir, name);
    // Files, and names that are gone (a deletion). Folders come as `addDir`/`unlinkDir`;
    // links and special files are not synced (scans report them).
    const kind = kindOf(abs);
    if (kind !== "other") add(toRel(abs), kind);
  }, options.onError);
  let isReady = false;
  folders.watch(root);
  watcher.add(root);
  // chokidar also sees a removed folder: the engine rescans what it remembered there.
  watcher.on("unlinkDir", (p: string) => {
    folders.unwatch(p);
    add(toRel(p), "folder");
  });
  // A new folder (mkdir -p, an unzip, a git checkout) may hold files written before its watch
  // began: its name holds a place in the batch, and its files are listed at delivery.
  watcher.on("addDir", (p: string) => {
    const abs = resolve(root, p);
    folders.watch(abs);
    const rel = toRel(abs);
    if (!isReady || closed || rel === undefined) return;
    newDirs.add(abs);
    batch.add(rel);
  });
  watcher.on("error", (err) => options.onError(err));
  const ready = new Promise<void>((resolveReady) =>
    watcher.once("ready", () => {
      isReady = true;
      resolveReady();
    }),
  );
  return {
    ready,
    flush: () => batch.flush(),
    close: async () => {
      closed = true;
      batch.close();
      folders.close();
      await watcher.close();
    },
  };
}

/** Every regular file under `dir` (absolute paths), not descending into skipped folders or links. */
async function listFiles(dir: string, skipDir: (abs: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  const stack = [dir];
  for (let d = stack.pop(); d !== undefined; d = stack.pop()) {
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const abs = join(d, e.name);
      if (e.isDirectory()) {
        if (!skipDir(abs)) stack.push(abs);
      } else if (e.isFile()) {
        out.push(abs);
      }
    }
  }
  return out;
}

/** What is at `abs` now, for a raw event: a file, gone, or something not synced as a file. */
function kindOf(abs: string): "file" | "gone" | "other" {
  try {
    return lstatSync(abs).isFile() ? "file" : "other";
  } catch {
    return "gone";
  }
}

/**
 * One fs.watch per folder, reporting `(folder, name)` for each event of a name in it. A folder
 * that cannot be watched (gone already, no permission) is skipped as chokidar skips it; a full
 * inotify or descriptor table (ENOSPC, EMFILE) is reported as chokidar reports it.
 */
class FolderWatches {
  readonly #byDir = new Map<string, FSWatcherHandle>();
  readonly #onEvent: (dir: string, name: string) => void;
  readonly #onError: (err: unknown) => void;

  constructor(onEvent: (dir: string, name: string) => void, onError: (err: unknown) => void) {
    this.#onEvent = onEvent;
    this.#onError = onError;
  }

  watch(dir: string): void {
    if (this.#byDir.has(dir)) return;
    let handle: FSWatcherHandle;
    try {
      handle = watch(dir, { persistent: true }, (_event, name) => {
        if (typeof name === "string" && name !== "") this.#onEvent(dir, name);
      });
    } catch (err) {
      const code = errnoCode(err);
      if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EACCES" && code !== "EPERM") this.#onError(err);
      return;
    }
    // A folder removed under its watch ends the watch (unwatch follows from `unlinkDir`).
    handle.on("error", () => this.unwatch(dir));
    this.#byDir.set(dir, handle);
  }

  /** Stops watching `dir` and every folder below it. */
  unwatch(dir: string): void {
    for (const [d, handle] of this.#byDir) {
      if (d === dir || d.startsWith(`${dir}${sep}`)) {
        handle.close();
        this.#byDir.delete(d);
      }
    }
  }

  close(): void {
    for (const handle of this.#byDir.values()) handle.close();
    this.#byDir.clear();
  }
}
