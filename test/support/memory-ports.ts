/**
 * In-memory versions of the engine's ports: a LocalTree over a Map and a DesignStore held in
 * memory. Both are inspectable and hookable, so any unit or model test can run DesignSync
 * without a disk, simulate a save racing the engine's write, or a lost state.json. They
 * implement every port method the real adapters do: the tree keeps the writes not yet made
 * durable (flush), the store counts base packs (putBases), and a folder made by
 * createMemoryFolder records each save that names a base whose write was not flushed.
 */
import { createIgnoreMatcher, type IgnoreMatcher } from "../../src/local/ignore-rules.js";
import { checkRemoteName } from "../../src/local/path-jail.js";
import { decodeUtf8Strict, hashContent } from "../../src/core/hash.js";
import { hasConflictMarkers } from "../../src/core/markers.js";
import { GUARDED_TEMP_SUFFIX } from "../../src/local/atomic-write.js";
import type { CasResult, DaemonRecordData, DesignStore, LocalRead, LocalTree, PersistedState, SkippedPath } from "../../src/sync/ports.js";

/** A file's content: text, or raw bytes (binary or not valid UTF-8). */
export type MemoryContent = string | Uint8Array;

/** One copy made by LocalTree.backup(). */
export interface BackupCopy {
  rel: string;
  stamp: string;
  content: MemoryContent;
}

/** One access of the engine to the tree, with the hash it saw or left (provenance tracking). */
export interface TreeAccess {
  op: "read" | "write" | "remove" | "backup";
  rel: string;
  hash: string | undefined;
}

/** Hook run right before an engine write or remove, after the engine's own read. */
export type BeforeWriteHook = (rel: string, op: "replace" | "remove") => void | Promise<void>;

/** Options of createMemoryLocalTree. */
export interface MemoryLocalTreeOptions {
  /** @default "/memory/design" */
  root?: string;
  /** @default the built-in ignore rules only */
  matcher?: IgnoreMatcher;
  /** Where backup() copies go; pass a MemoryDesignStore's `backups` to keep them together. */
  backups?: BackupCopy[];
}

/** A LocalTree over a Map of path -> content, plus a user-side API and inspection. */
export interface MemoryLocalTree extends LocalTree {
  readonly files: Map<string, MemoryContent>;
  /** False: the mapped folder does not exist (an engine write re-creates it, like mkdir -p). */
  present: boolean;
  readonly backups: BackupCopy[];
  /** Paths the engine tried to touch that the jail refuses; each one also threw. */
  readonly jailViolations: string[];
  beforeWrite: BeforeWriteHook | undefined;
  onAccess: ((access: TreeAccess) => void) | undefined;
  /** User-side write: not an engine access, no hooks. */
  put(rel: string, content: MemoryContent): void;
  /** User-side delete. */
  drop(rel: string): void;
  /** The text of a file; undefined when absent or binary. */
  text(rel: string): string | undefined;
  /** What skipped() answers (the real scan's symlinks and special files). @default [] */
  skippedPaths: SkippedPath[];
  /** Engine writes since the last flush(), path -> hash written (not durable yet). */
  readonly unflushed: ReadonlyMap<string, string>;
  /** Engine removals since the last flush() that covered them (not durable yet). */
  readonly unflushedRemovals: ReadonlySet<string>;
  /**
   * flush() makes the removals durable too, as the real adapter's write session does (its
   * folders fsynced). The model's sanity test turns it off to show the invariant bites.
   * @default true
   */
  removalsInFlush: boolean;
  /** Calls of beginWrites() and flush() so far, in order (a test asserts the cycle's shape). */
  readonly writeCalls: ("begin" | "flush")[];
  /**
   * A slow writer opens `rel` (the file as it is now); the function it returns says where its
   * later write lands, as on a real file system: `in-place` (the file it opened is still there),
   * `restored` (the engine replaced it over a local edit, `localEdit`: the held old file was
   * watched and the write goes back under the name, the engine's text backed up; the real
   * adapter's src/local/late-writes.ts), `copied` (the same, but the name changed again since:
   * a conflict copy), `lost` (replaced with no watch: the bytes went into a file no name shows).
   * It writes nothing itself but the backup: the caller puts the text where the outcome says.
   */
  openWriter(rel: string): () => "in-place" | "restored" | "copied" | "lost";
}

/** Describes `content` the way the real scan does (hash of the bytes, strict UTF-8, markers). */
export function describeContent(content: MemoryContent): LocalRead {
  const text = typeof content === "string" ? content : decodeUtf8Strict(content);
  const binary = text === undefined || text.includes("\u0000");
  return { hash: hashContent(content), binary, hasMarkers: !binary && hasConflictMarkers(text), text: binary ? undefined : text };
}

/** Creates an in-memory mapped folder. */
export function createMemoryLocalTree(options: MemoryLocalTreeOptions = {}): MemoryLocalTree {
  const matcher = options.matcher ?? createIgnoreMatcher({ patterns: [] });
  const files = new Map<string, MemoryContent>();
  const jailViolations: string[] = [];
  const unflushed = new Map<string, string>();
  const unflushedRemovals = new Set<string>();
  // Each engine replace or removal makes a new file under the name (rename(2)): a writer's
  // descriptor keeps the old one. Held: the old files a `localEdit` replace watches, with the
  // hash of the text the engine put under the name.
  const generation = new Map<string, number>();
  const held = new Map<string, string>();
  const replaced = (rel: string, oursHash: string | undefined, watch: boolean): void => {
    const old = generation.get(rel) ?? 0;
    generation.set(rel, old + 1);
    if (watch && oursHash !== undefined) held.set(`${rel}#${old}`, oursHash);
  };
  const tree: MemoryLocalTree = {
    root: options.root ?? "/memory/design",
    files,
    present: true,
    backups: options.backups ?? [],
    jailViolations,
    beforeWrite: undefined,
    onAccess: undefined,
    skippedPaths: [],
    unflushed,
    unflushedRemovals,
    removalsInFlush: true,
    writeCalls: [],
    openWriter(rel) {
      const opened = generation.get(rel) ?? 0;
      return () => {
        if ((generation.get(rel) ?? 0) === opened) return "in-place";
        const ours = held.get(`${rel}#${opened}`);
        if (ours === undefined) return "lost";
        held.delete(`${rel}#${opened}`);
        const now = files.get(rel);
        if (now !== undefined && hashContent(now) !== ours) return "copied";
        if (now !== undefined) tree.backups.push({ rel, stamp: "late-write", content: now });
        return "restored";
      };
    },
    put(rel, content) {
      files.set(rel, content);
      tree.present = true;
    },
    drop(rel) {
      files.delete(rel);
    },
    text(rel) {
      const content = files.get(rel);
      return content === undefined ? undefined : describeContent(content).text;
    },
    exists: () => Promise.resolve(tree.present),
    scan() {
      const out = new Map<string, Omit<LocalRead, "text">>();
      if (!tree.present) return Promise.resolve(out);
      for (const [rel, content] of [...files].sort(([x], [y]) => (x < y ? -1 : 1))) {
        if (matcher.ignores(rel)) continue;
        const { hash, binary, hasMarkers } = describeContent(content);
        out.set(rel, { hash, binary, hasMarkers });
        tree.onAccess?.({ op: "read", rel, hash });
      }
      return Promise.resolve(out);
    },
    read(rel) {
      jail(rel);
      const content = tree.present ? files.get(rel) : undefined;
      if (content === undefined) return Promise.resolve(undefined);
      const read = describeContent(content);
      tree.onAccess?.({ op: "read", rel, hash: read.hash });
      return Promise.resolve(read);
    },
    ignores: (rel) => matcher.ignores(rel),
    async replaceIfUnchanged(rel, expectHash, text, options): Promise<CasResult> {
      jail(rel);
      // Like the real tree: a first check, before the write waits at its gate.
      if (expectHash !== undefined && currentHash(rel) !== expectHash) return "changed-meanwhile";
      await options?.after;
      await tree.beforeWrite?.(rel, "replace");
      if (currentHash(rel) !== expectHash) return "changed-meanwhile";
      tree.present = true;
      if (expectHash !== undefined) replaced(rel, hashContent(text), options?.localEdit === true);
      files.set(rel, text);
      unflushed.set(rel, hashContent(text));
      tree.onAccess?.({ op: "write", rel, hash: hashContent(text) });
      return "done";
    },
    async removeIfUnchanged(rel, expectHash): Promise<CasResult> {
      jail(rel);
      await tree.beforeWrite?.(rel, "remove");
      if (currentHash(rel) !== expectHash) return "changed-meanwhile";
      files.delete(rel);
      replaced(rel, undefined, false);
      unflushedRemovals.add(rel);
      tree.onAccess?.({ op: "remove", rel, hash: expectHash });
      return "done";
    },
    skipped: () => [...tree.skippedPaths],
    removeStaleTemps() {
      // Like the real sweep: only this tool's own temp names, which a killed write leaves.
      const removed = [...files.keys()].filter((rel) => rel.endsWith(GUARDED_TEMP_SUFFIX));
      for (const rel of removed) files.delete(rel);
      return Promise.resolve(removed);
    },
    // In memory a write is whole or absent: nothing is ever left half-written.
    removeIncomplete: () => Promise.resolve([]),
    beginWrites() {
      tree.writeCalls.push("begin");
    },
    flush() {
      tree.writeCalls.push("flush");
      unflushed.clear();
      if (tree.removalsInFlush) unflushedRemovals.clear();
      return Promise.resolve();
    },
    backup(rel, stamp) {
      jail(rel);
      const content = tree.present ? files.get(rel) : undefined;
      if (content !== undefined) {
        tree.backups.push({ rel, stamp, content: typeof content === "string" ? content : content.slice() });
        tree.onAccess?.({ op: "backup", rel, hash: hashContent(content) });
      }
      return Promise.resolve();
    },
  };

  function currentHash(rel: string): string | undefined {
    const content = tree.present ? files.get(rel) : undefined;
    return content === undefined ? undefined : hashContent(content);
  }

  // The real tree resolves every path inside the root and throws otherwise; here the refusal
  // is also recorded, so a test can assert the engine never even tried.
  function jail(rel: string): void {
    const verdict = checkRemoteName(rel);
    if (verdict.ok) return;
    jailViolations.push(rel);
    throw new Error(`path refused by the jail: ${JSON.stringify(rel)} (${verdict.reason})`);
  }

  return tree;
}

/** One copy saved by DesignStore.saveConflict(). */
export interface ConflictCopy {
  rel: string;
  stamp: string;
  sides: { local?: string; remote?: string; base?: string };
}

/** A DesignStore held in memory, with everything it holds open to inspection. */
export interface MemoryDesignStore extends DesignStore {
  /** The state as last saved (what survives a crash); undefined before the first save. */
  readonly saved: PersistedState | undefined;
  /** daemon.json as last saved. */
  readonly savedDaemon: DaemonRecordData | undefined;
  /** Base texts by hash. */
  readonly bases: Map<string, string>;
  readonly conflicts: ConflictCopy[];
  /** Backups of the folder (share with createMemoryLocalTree's `backups` option). */
  readonly backups: BackupCopy[];
  /** Number of save() calls so far. */
  readonly saveCount: number;
  /** Sizes of the putBases() calls that stored two texts or more (the real store's packs). */
  readonly packs: number[];
  /** What hasUnsavedCache() answers; save() clears it, as the real scan cache is saved. */
  unsavedCache: boolean;
  /**
   * Saves that named a base whose file was written but not flushed (only for a store of
   * createMemoryFolder): after a power loss state.json would name a text the disk lost.
   */
  readonly unflushedBases: string[];
  /** Saves that recorded a removal (a base dropped) whose removal was not flushed: a power loss could bring the file back. */
  readonly unflushedRemovals: string[];
  /** The next load() finds state.json corrupt: it answers an empty state, `recovered: "corrupt"`. */
  corruptNextLoad(): void;
}

/** Options of createMemoryDesignStore. */
export interface MemoryDesignStoreOptions {
  /** The tree whose unflushed writes a durable save must not name as bases (unflushedBases). */
  writes?: Pick<MemoryLocalTree, "unflushed" | "unflushedRemovals">;
  /** Where the tree's backups go. @default a fresh list */
  backups?: BackupCopy[];
}

/** Creates an empty in-memory store (load() answers `recovered: "missing"` until a save). */
export function createMemoryDesignStore(options: MemoryDesignStoreOptions = {}): MemoryDesignStore {
  let saved: PersistedState | undefined;
  let savedDaemon: DaemonRecordData | undefined;
  let corrupt = false;
  let saveCount = 0;
  const bases = new Map<string, string>();
  const store: MemoryDesignStore = {
    get saved() {
      return saved;
    },
    get savedDaemon() {
      return savedDaemon;
    },
    bases,
    conflicts: [],
    backups: options.backups ?? [],
    get saveCount() {
      return saveCount;
    },
    packs: [],
    unsavedCache: false,
    unflushedBases: [],
    unflushedRemovals: [],
    corruptNextLoad() {
      corrupt = true;
    },
    load() {
      if (corrupt) {
        // Like the real store: the damaged file is set aside, never reused.
        corrupt = false;
        saved = undefined;
        return Promise.resolve({ state: { files: {} }, daemon: structuredClone(savedDaemon ?? {}), recovered: "corrupt" as const });
      }
      // A copy: only save() may persist what the engine holds.
      const daemon = structuredClone(savedDaemon ?? {});
      if (saved === undefined) return Promise.resolve({ state: { files: {} }, daemon, recovered: "missing" as const });
      return Promise.resolve({ state: structuredClone(saved), daemon });
    },
    save(state, saveOptions) {
      // A journal save (durable: false) is made durable by the cycle's flush; a durable one
      // must find every base it newly names already flushed.
      if (options.writes !== undefined && saveOptions?.durable !== false) {
        for (const [rel, hash] of options.writes.unflushed) {
          if (state.files[rel]?.hash === hash && saved?.files[rel]?.hash !== hash) store.unflushedBases.push(`${rel} (${hash.slice(0, 12)})`);
        }
        for (const rel of options.writes.unflushedRemovals) {
          if (state.files[rel] === undefined && saved?.files[rel] !== undefined) store.unflushedRemovals.push(rel);
        }
      }
      store.unsavedCache = false;
      saved = structuredClone(state);
      saveCount += 1;
      return Promise.resolve();
    },
    saveDaemon(record) {
      savedDaemon = structuredClone(record);
      return Promise.resolve();
    },
    putBase(text) {
      const hash = hashContent(text);
      bases.set(hash, text);
      return Promise.resolve(hash);
    },
    async putBases(texts) {
      if (texts.length > 1) store.packs.push(texts.length);
      return Promise.all(texts.map((t) => store.putBase(t)));
    },
    hasUnsavedCache: () => store.unsavedCache,
    getBase: (hash) => Promise.resolve(bases.get(hash)),
    pruneBases(keep) {
      for (const hash of [...bases.keys()]) if (!keep.has(hash)) bases.delete(hash);
      return Promise.resolve();
    },
    saveConflict(rel, sides, stamp) {
      store.conflicts.push({ rel, stamp, sides: { ...sides } });
      return Promise.resolve();
    },
  };
  return store;
}

/** A mapped folder in memory: its tree and its store, sharing backups, the store checking durability. */
export function createMemoryFolder(options: Omit<MemoryLocalTreeOptions, "backups"> = {}): { tree: MemoryLocalTree; store: MemoryDesignStore } {
  const backups: BackupCopy[] = [];
  const tree = createMemoryLocalTree({ ...options, backups });
  const store = createMemoryDesignStore({ writes: tree, backups });
  return { tree, store };
}
