/**
 * The engine's ports on the real file system: a LocalTree over src/local/ and a DesignStore
 * over src/state/. Both share one ScanCache, persisted in `.mpsync/scan-cache.json`, so a
 * restart re-reads only the files whose stat data changed. The daemon's record (daemon-record.ts)
 * goes to `.mpsync/daemon.json`: state.json holds the bases, their journals and the folder status.
 */
import { stat } from "node:fs/promises";
import { backupLocalFile, removeIfUnchanged, replaceIfUnchanged, type BackupMemory } from "../local/local-fs.js";
import { forgetOldBackup } from "../local/backup-retention.js";
import { loadIgnoreMatcher, type IgnoreMatcher } from "../local/ignore-rules.js";
import { ScanCache } from "../local/scan-cache.js";
import { removeStaleTempFiles } from "../local/stale-temps.js";
import { removeIncompleteFiles } from "../local/create-in-place.js";
import { flushWrites, newWriteSession, type FlushOptions } from "../local/write-session.js";
import { WriteGate } from "../local/write-gate.js";
import { LateWriteWatch, waitUntilQuiet, type LateWrite } from "../local/late-writes.js";
import type { LocalEditGuard } from "../local/local-fs.js";
import { conflictSidePath, recoveryStamp } from "../local/recovery-layout.js";
import { join, relative, sep } from "node:path";
import { readLocalFile, scanTree, type SkipReason } from "../local/scan-tree.js";
import { UnsafeLocalPathError } from "../local/safe-path.js";
import { openStateStore } from "../state/state-store.js";
import { daemonFileSchema, scanCacheFileSchema } from "../state/state-schema.js";
import type { Clock } from "../core/clock.js";
import type { DesignStore, PersistedState } from "./ports.js";
import type { LocalRead, LocalTree, SkippedPath } from "./ports.js";
import { errnoCode } from "../core/errors.js";
import { takeVersionIntents } from "../state/version-intent.js";

/** A mapped folder's tree, store and ignore matcher. */
export interface FsFolder {
  local: LocalTree;
  store: DesignStore;
  matcher: IgnoreMatcher;
  /**
   * Stops this folder's local writes (Ctrl-C): none starts any more, those in flight end, then
   * any temp file left in the folder is removed. Resolves the temp files removed.
   */
  interrupt(): Promise<string[]>;
}

/**
 * Builds the real adapters of the folder `root` (reads `.syncignore`). `flush`: how the
 * cycle's durability flush reaches the disk (tests record its fsyncs).
 */
export async function openFsFolder(
  root: string,
  ignorePatterns: readonly string[],
  clock: Pick<Clock, "now" | "monotonic" | "sleep">,
  options: { flush?: FlushOptions; onLateWrite?: (w: LateWrite) => void } = {},
): Promise<FsFolder> {
  const matcher = await loadIgnoreMatcher(root, ignorePatterns);
  const cache = new ScanCache();
  // Set when a scan had to read a file (a cache miss): the new entry is worth persisting.
  let cacheDirty = false;
  // This cycle's writes: folders seen once, files made durable together by flush() before
  // state.json records them as bases (an fsync per file made large pulls crawl).
  const session = newWriteSession();
  const store = openStateStore(root, { clock });
  // What the last scan left out and why (symlinks, special files): `mpsync status` lists them.
  let skipped: SkippedPath[] = [];
  // What was last written of each file: a save rewrites only the files whose content moved,
  // so a status save touches daemon.json, never the (large) bases of state.json.
  let writtenState: string | undefined;
  let writtenDaemon: string | undefined;
  const backups: BackupMemory = new Map();
  const gate = new WriteGate();
  const late = lateWriteWatch(root, store, clock, options.onLateWrite);
  const editGuard: LocalEditGuard = { quiet: (abs) => waitUntilQuiet(abs, { now: () => clock.monotonic(), sleep: (ms) => clock.sleep(ms) }), late };
  const designStore: DesignStore = {
    async load() {
      const loaded = await store.load();
      const { version: _v, scanCache: legacyCache, lastStatus, lastError, ...core } = loaded.state;
      const daemon = (await store.loadSide("daemon.json", daemonFileSchema)) ?? { lastStatus, lastError };
      cache.retainOnly(new Set());
      const entries = (await store.loadSide("scan-cache.json", scanCacheFileSchema)) ?? legacyCache ?? {};
      for (const [rel, entry] of Object.entries(entries)) cache.remember(rel, entry, Number.POSITIVE_INFINITY);
      // A cache read from an older state.json moves to its own file at the next save.
      cacheDirty = legacyCache !== undefined;
      writtenState = undefined;
      writtenDaemon = undefined;
      return { state: core as PersistedState, daemon, recovered: loaded.recovered };
    },
    async save(state, options) {
      // Never re-create a mapped folder that vanished just to hold its state: that would
      // turn "folder missing" into "folder emptied" and hide what happened from the user.
      if (!(await folderExists(root))) return;
      await store.ensureLayout();
      const text = JSON.stringify(state);
      // A state.json removed with the folder's `.mpsync/` (the folder was removed and is back) is written again.
      if (
        text !== writtenState ||
        !(await stat(join(store.dir, "state.json")).then(
          () => true,
          () => false,
        ))
      ) {
        await store.save(state, options);
        writtenState = text;
      }
      if (cacheDirty) {
        cacheDirty = false;
        await store.saveSide("scan-cache.json", cache.toJSON());
      }
    },
    async saveDaemon(record) {
      const text = JSON.stringify(record);
      if (text === writtenDaemon || !(await folderExists(root))) return;
      await store.ensureLayout();
      await store.saveSide("daemon.json", record);
      writtenDaemon = text;
    },
    hasUnsavedCache: () => cacheDirty,
    putBase: (text) => store.putBase(text),
    putBases: (texts) => store.putBases(texts),
    getBase: (hash) => store.getBase(hash),
    pruneBases: (keep) => store.pruneBases(keep),
    saveConflict: (rel, sides, stamp) => store.saveConflict(rel, sides, stamp),
    takeVersionIntents: async () =>
      (await takeVersionIntents(root)).map(({ landed, unanswered }) => ({ landed, ...(unanswered === undefined ? {} : { unanswered }) })),
  };
  const local: LocalTree = {
    root,
    exists: () => folderExists(root),
    async scan() {
      const left: SkippedPath[] = [];
      const files = await scanTree(root, matcher, cache, {
        onRead: () => {
          cacheDirty = true;
        },
        onSkip: (rel, reason) => left.push({ path: rel, reason: SKIP_REASONS[reason], needsAttention: reason === "unreadable" }),
      });
      skipped = left.sort((a, b) => (a.path < b.path ? -1 : 1));
      return new Map([...files].map(([rel, f]) => [rel, { hash: f.hash, binary: f.binary, hasMarkers: f.hasMarkers, mtimeMs: f.mtimeMs }]));
    },
    async read(rel): Promise<LocalRead | undefined> {
      try {
        const f = await readLocalFile(root, rel);
        return f === undefined ? undefined : { hash: f.hash, binary: f.binary, hasMarkers: f.hasMarkers, text: f.text };
      } catch (err) {
        // A symlink (or a path through one) is not followed: for sync it is not a file.
        if (err instanceof UnsafeLocalPathError) return undefined;
        throw err;
      }
    },
    skipped: () => skipped,
    ignores: (rel) => matcher.ignores(rel),
    replaceIfUnchanged: (rel, expect, text, options) =>
      gate.run(async () => {
        await store.ensureLayout();
        try {
          const localEdit = options?.localEdit === true ? editGuard : undefined;
          const outcome = await replaceIfUnchanged(root, rel, expect, text, { session, after: options?.after, localEdit });
          return outcome === "written" ? "done" : "changed-meanwhile";
        } catch (err) {
          if (isBlockedPath(err)) return "blocked";
          throw err;
        }
      }),
    removeStaleTemps: () => removeStaleTempFiles(root, matcher),
    endHolds: async () => late?.close(),
    removeIncomplete: (paths) => removeIncompleteFiles(root, paths),
    beginWrites() {
      session.dirs.clear();
    },
    async flush() {
      await flushWrites(session, options.flush);
    },
    removeIfUnchanged: (rel, expect) =>
      gate.run(async () => ((await removeIfUnchanged(root, rel, expect, { session })) === "removed" ? "done" : "changed-meanwhile")),
    backup: (rel, stamp) =>
      gate.run(async () => {
        await store.ensureLayout();
        forgetOldBackup(backups, store.backupsDir, rel, stamp); // reused only while younger than pruning can reach
        await backupLocalFile(root, rel, store.backupsDir, stamp, { memory: backups, session });
      }),
  };
  const interrupt = async (): Promise<string[]> => {
    await gate.close();
    await late?.close();
    return removeStaleTempFiles(root, matcher);
  };
  return { local, store: designStore, matcher, interrupt };
}

/**
 * The folder's watch for writes landing on files a conflict's write replaced (late-writes.ts):
 * mpsync's text is backed up before the writer's goes back, or the writer's is kept as a
 * conflict copy. None without a listener: a recovered write must be said.
 */
function lateWriteWatch(
  root: string,
  store: ReturnType<typeof openStateStore>,
  clock: Pick<Clock, "now" | "monotonic">,
  onLateWrite: ((w: LateWrite) => void) | undefined,
): LateWriteWatch | undefined {
  if (onLateWrite === undefined) return undefined;
  const shown = (abs: string | undefined): string | undefined => (abs === undefined ? undefined : relative(root, abs).split(sep).join("/"));
  return new LateWriteWatch({
    now: () => clock.monotonic(),
    backup: async (rel) => {
      await store.ensureLayout();
      return shown(await backupLocalFile(root, rel, store.backupsDir, recoveryStamp(clock.now())));
    },
    conflictCopy: async (rel, text) => {
      const stamp = recoveryStamp(clock.now());
      await store.saveConflict(rel, { local: text.toString("utf8") }, stamp);
      return shown(conflictSidePath(store.conflictsDir, stamp, rel, "local"));
    },
    onLateWrite,
  });
}

/** The line that says a recovered late write. */
export function lateWriteLine(w: LateWrite): string {
  if (w.outcome === "restored")
    return `${w.rel} was still being written when mpsync replaced it: the writer's text is back in ${w.rel} and syncs as your edit${w.kept === undefined ? "" : `; mpsync's text is in ${w.kept}`}`;
  return `${w.rel} was still being written when mpsync replaced it, and changed again since: the writer's text is kept in ${w.kept ?? ".mpsync/conflicts/"} (mpsync restore ${w.rel} --list)`;
}

/** How `status` words each reason a scan leaves a path out. */
const SKIP_REASONS: Record<SkipReason, string> = {
  symlink: "a symbolic link: never followed or synced; copy the file here if it should sync",
  "not-a-file": "not a regular file (a socket, pipe or device): never synced",
  unreadable: "could not be read (permissions?): not synced until it can be",
};

async function folderExists(root: string): Promise<boolean> {
  try {
    return (await stat(root)).isDirectory();
  } catch {
    return false;
  }
}

/** A path that cannot take a file: a folder or a symlink is in the way (reported, not fatal). */
function isBlockedPath(err: unknown): boolean {
  if (err instanceof UnsafeLocalPathError) return true;
  const code = errnoCode(err);
  return code === "ENOTDIR" || code === "EISDIR" || code === "EEXIST";
}

/** Hears the engine's writes into a mapped folder: a pull's files land between `writing` and `settled`. */
export interface WriteObserver {
  /** A write or removal of a local file is about to happen. */
  writing(): void;
  /** The cycle is over (its writes, if any, are all on disk). */
  settled(): void;
}

/** `local` with `onWrite` called before each write or removal of a file (`mpsync dev` holds its reload until the cycle ends). */
export function observeLocalWrites(local: LocalTree, onWrite: () => void): LocalTree {
  return {
    ...local,
    replaceIfUnchanged(rel, expect, text, options) {
      onWrite();
      return local.replaceIfUnchanged(rel, expect, text, options);
    },
    removeIfUnchanged(rel, expect) {
      onWrite();
      return local.removeIfUnchanged(rel, expect);
    },
  };
}
