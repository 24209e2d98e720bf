/**
 * The local change source: chokidar events turned into debounced batches of relative paths.
 * A batch means "look at these paths again"; the engine re-reads and compares content hashes,
 * so echoes of its own writes, half-written files and duplicate events are harmless here.
 */
import { existsSync, lstatSync, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { FSWatcher } from "chokidar";
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
  // Folders only: chokidar watches directories, and each folder's inotify watch reports its
  // files' changes as `raw` events (name relative to the folder). A watch per file cost 10,201
  // inotify watches, ~1 s of start-up and ~100 MiB of RSS on a 10,000-file folder.
  const watcher = new FolderWatcher({
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
      // Not a folder: not walked into, not watched. Links are never followed either: fs.watch
      // on a link follows it, so the target tree's changes would come back as the link's.
      if (stats !== undefined && !stats.isDirectory()) return true;
      // chokidar asks once without stats before it stats a path: only file rules can be
      // decided then; folder rules (`node_modules/`) apply on the call with stats, before
      // chokidar descends.
      return options.matcher.ignores(rel, stats?.isDirectory() ?? false);
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
  watcher.add(root);
  watcher.on("raw", (_event, name, details) => {
    const dir = (details as { watchedPath?: string } | undefined)?.watchedPath;
    if (dir === undefined || typeof name !== "string" || name === "") return;
    // An event about the watched folder itself carries its own base name (libuv); a removed
    // folder is reported by `unlinkDir` below.
    if (name === basename(dir) && !existsSync(dir)) return;
    const abs = join(dir, name);
    // Files, and names that are gone (a deletion). Folders come as `addDir`/`unlinkDir`;
    // links and special files are not synced (scans report them).
    const kind = kindOf(abs);
    if (kind !== "other") add(toRel(abs), kind);
  });
  // chokidar also sees a removed folder: the engine rescans what it remembered there.
  watcher.on("unlinkDir", (p: string) => add(toRel(p), "folder"));
  // A new folder (mkdir -p, an unzip, a git checkout) may hold files written before its watch
  // began: its name holds a place in the batch, and its files are listed at delivery.
  watcher.on("addDir", (p: string) => {
    const rel = toRel(p);
    if (rel === undefined) return;
    newDirs.add(p);
    batch.add(rel);
  });
  watcher.on("error", (err) => options.onError(err));
  const ready = new Promise<void>((resolveReady) => watcher.once("ready", () => resolveReady()));
  return {
    ready,
    flush: () => batch.flush(),
    close: async () => {
      closed = true;
      batch.close();
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

type ReaddirpOptions = NonNullable<Parameters<FSWatcher["_readdirp"]>[1]>;
type EntryFilter = NonNullable<ReaddirpOptions["directoryFilter"]>;

/**
 * chokidar, watching folders only and walking without an lstat per entry. chokidar reads each
 * folder with readdirp and has it lstat every entry, only so `ignored` can see what the entry
 * is. Here every non-folder is ignored, and readdir's entry types tell folders from the rest:
 * files are dropped unseen, and a folder's Dirent stands in for its stats (chokidar's filter
 * asks it isDirectory() and isSymbolicLink(), and the mode, which ignorePermissionErrors
 * skips); chokidar still stats each folder it keeps before watching it. So a start-up lstats
 * each file once (the scan's), not twice (10,000 files: ~10 % of the time to ready).
 */
export class FolderWatcher extends FSWatcher {
  override _readdirp(root: string, opts?: Partial<ReaddirpOptions>): ReturnType<FSWatcher["_readdirp"]> {
    const filter = opts?.directoryFilter;
    const directoryFilter: EntryFilter = (entry) => {
      if (entry.dirent === undefined || !entry.dirent.isDirectory()) return false;
      entry.stats ??= entry.dirent as unknown as Stats;
      return typeof filter === "function" ? filter(entry) : true;
    };
    return super._readdirp(root, { ...opts, alwaysStat: false, fileFilter: () => false, directoryFilter });
  }
}
