/**
 * The per-folder store under `<root>/.mpsync/`: state.json (the bases), content-addressed base
 * texts, conflict copies and the backups folder. Every write is atomic. Loading never throws and
 * never deletes: a corrupt state.json is moved aside and sync starts from an empty state, which
 * the reconcile turns into conflicts rather than deletes.
 */
import type { z } from "zod";
import { MpsyncError, errnoCode, isErrno } from "../core/errors.js";
import { lstat, mkdir, readFile, rename, stat } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomically, writeFileAtomicallyGuarded, writeJsonAtomically } from "../local/atomic-write.js";
import {
  BACKUPS_DIR_NAME,
  CONFLICT_SIDES,
  conflictSidePath,
  CONFLICTS_DIR_NAME,
  recoveryStamp,
  STATE_DIR_NAME,
  type ConflictSides,
} from "../local/recovery-layout.js";
import type { Clock } from "../core/clock.js";
import { BaseTextStore } from "./base-store.js";
import { emptySyncState, STATE_VERSION, syncStateSchema, type SyncState, type SyncStateInput } from "./state-schema.js";

/** The store's side files (see StateStore.loadSide). */
export type SideFile = "scan-cache.json" | "daemon.json" | "links.json";

/** Name of the per-folder store (its recovery folders: local/recovery-layout.ts). */
export { STATE_DIR_NAME };

/** Result of StateStore.load(). */
export interface LoadedState {
  state: SyncState;
  /** Set when no usable state.json was found. */
  recovered?: "missing" | "corrupt";
  /** Why the file was unusable (corrupt only). */
  detail?: string;
  /** Where the corrupt file was moved (corrupt only, when the move succeeded). */
  movedTo?: string;
}

/** The sides of a conflict as saved under `.mpsync/conflicts/`. */
export type { ConflictSides };

/** A folder's `.mpsync/` store. */
export interface StateStore {
  /** `<root>/.mpsync`. */
  readonly dir: string;
  /** `<root>/.mpsync/backups` (local-fs backupLocalFile writes under it). */
  readonly backupsDir: string;
  /** `<root>/.mpsync/conflicts`. */
  readonly conflictsDir: string;
  /** Creates `.mpsync/` and its `.gitignore` (`*`) so git never sees the store. */
  ensureLayout(): Promise<void>;
  /** Reads state.json; never throws (missing or corrupt: an empty state and `recovered`). */
  load(): Promise<LoadedState>;
  /** Validates and atomically writes state.json. */
  save(state: SyncStateInput, options?: { durable?: boolean }): Promise<void>;
  /**
   * A side file of the store, kept out of state.json so the bases are not rewritten for it:
   * the scan cache, the daemon's last status. Undefined when missing or malformed (both are
   * only accelerators or reports, never a reason to distrust the bases).
   */
  loadSide<T>(name: SideFile, schema: z.ZodType<T>): Promise<T | undefined>;
  /** Atomically writes a side file (no fsync: losing one costs a re-read, never an edit). */
  saveSide(name: SideFile, value: unknown): Promise<void>;
  /** Stores a base text by content; resolves its hash. */
  putBase(text: string): Promise<string>;
  /** Stores many base texts at once (one pack: a pull); resolves their hashes in order. */
  putBases(texts: readonly string[]): Promise<string[]>;
  /** A stored base text, or undefined when absent or damaged. */
  getBase(hash: string): Promise<string | undefined>;
  /** Removes every stored base text whose hash is not in `keep`. */
  pruneBases(keep: Iterable<string>): Promise<void>;
  /** Saves the sides of a conflict under `conflicts/<stamp>/`, each named by local/recovery-layout.ts. */
  saveConflict(rel: string, sides: ConflictSides, stamp: string): Promise<void>;
}

/** Opens (without touching the disk) the store of the mapped folder `root`. */
export function openStateStore(root: string, options: { clock?: Pick<Clock, "now"> } = {}): StateStore {
  return new FolderStateStore(root, options.clock ?? { now: () => Date.now() });
}

class FolderStateStore implements StateStore {
  readonly dir: string;
  readonly backupsDir: string;
  readonly conflictsDir: string;
  readonly #statePath: string;
  readonly #baseDir: string;
  readonly #clock: Pick<Clock, "now">;
  readonly #bases: BaseTextStore;
  #layoutReady: Promise<void> | undefined;
  /** The last state.json write: each waits for the one before, so saves land in call order. */
  #saving: Promise<unknown> = Promise.resolve();

  constructor(root: string, clock: Pick<Clock, "now">) {
    this.dir = join(root, STATE_DIR_NAME);
    this.backupsDir = join(this.dir, BACKUPS_DIR_NAME);
    this.conflictsDir = join(this.dir, CONFLICTS_DIR_NAME);
    this.#statePath = join(this.dir, "state.json");
    this.#baseDir = join(this.dir, "base");
    this.#clock = clock;
    this.#bases = new BaseTextStore(this.#baseDir, () => this.ensureLayout());
  }

  ensureLayout(): Promise<void> {
    // Memoised per store; a failed attempt is retried on the next call.
    this.#layoutReady ??= writeGitignore(this.dir).catch((err: unknown) => {
      this.#layoutReady = undefined;
      throw err;
    });
    return this.#layoutReady;
  }

  async load(): Promise<LoadedState> {
    let raw: string;
    try {
      raw = await readFile(this.#statePath, "utf8");
    } catch (err) {
      const code = errnoCode(err);
      if (code === "ENOENT") return { state: emptySyncState(), recovered: "missing" };
      return this.#setAside(`state.json could not be read (${code ?? String(err)})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      return this.#setAside(`state.json is not valid JSON (${(err as Error).message})`);
    }
    const result = syncStateSchema.safeParse(parsed);
    if (!result.success) {
      const first = result.error.issues[0];
      const where = first === undefined || first.path.length === 0 ? "" : ` at ${first.path.join(".")}`;
      return this.#setAside(`state.json is invalid${where}: ${first?.message ?? "unknown problem"}`);
    }
    return { state: result.data };
  }

  async save(state: SyncStateInput, options: { durable?: boolean } = {}): Promise<void> {
    // Validation here catches engine bugs (a bad hash) before they reach the disk.
    const valid = syncStateSchema.parse({ ...state, version: STATE_VERSION });
    await this.ensureLayout();
    // Compact: with 10,000 files (and their scan cache) pretty-printing triples the size.
    const text = `${JSON.stringify(valid)}\n`;
    // A journal save (not durable) sits between a pull's read and its file writes: it goes
    // through the guarded writer, whose calls but the create run inline, not write-file-atomic's
    // dozen trips through libuv's thread pool (its realpath and stat) that the cycle's own
    // writes queue behind. The folder exists (ensureLayout).
    const write = this.#saving.then((): Promise<unknown> =>
      options.durable === false
        ? writeFileAtomicallyGuarded(this.#statePath, text, { fsync: false, deferFolderSync: () => undefined, knownDirs: new Set([this.dir]) })
        : writeFileAtomically(this.#statePath, text, { fsync: true }),
    );
    this.#saving = write.catch(() => undefined);
    await write;
  }

  async loadSide<T>(name: SideFile, schema: z.ZodType<T>): Promise<T | undefined> {
    try {
      const parsed = schema.safeParse(JSON.parse(await readFile(join(this.dir, name), "utf8")));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async saveSide(name: SideFile, value: unknown): Promise<void> {
    await this.ensureLayout();
    await writeJsonAtomically(join(this.dir, name), value, { compact: true, fsync: false });
  }

  putBase(text: string): Promise<string> {
    return this.#bases.putBase(text);
  }

  putBases(texts: readonly string[]): Promise<string[]> {
    return this.#bases.putBases(texts);
  }

  getBase(hash: string): Promise<string | undefined> {
    return this.#bases.getBase(hash);
  }

  pruneBases(keep: Iterable<string>): Promise<void> {
    return this.#bases.pruneBases(keep);
  }

  async saveConflict(rel: string, sides: ConflictSides, stamp: string): Promise<void> {
    const paths = CONFLICT_SIDES.map((side) => [conflictSidePath(this.conflictsDir, stamp, rel, side), sides[side]] as const);
    await this.ensureLayout();
    for (const [file, text] of paths) if (text !== undefined) await writeFileAtomically(file, text);
  }

  async #setAside(detail: string): Promise<LoadedState> {
    const target = `${this.#statePath}.corrupt-${recoveryStamp(this.#clock.now())}`;
    try {
      // Never overwrite an earlier corrupt copy: rename onto an existing name would.
      const free = (await exists(target)) ? `${target}-${process.pid}-${Math.random().toString(36).slice(2, 8)}` : target;
      await rename(this.#statePath, free);
      return { state: emptySyncState(), recovered: "corrupt", detail, movedTo: free };
    } catch {
      return { state: emptySyncState(), recovered: "corrupt", detail };
    }
  }
}

/** Writes `.mpsync/.gitignore` (`*`: git ignores the folder's state) when it is missing. */
export async function writeGitignore(dir: string): Promise<void> {
  await assertStateDirSafe(dir);
  const file = join(dir, ".gitignore");
  // Written when missing, never over a .gitignore someone else wrote.
  const current = await readFile(file, "utf8").catch(() => undefined);
  if (current === undefined) await writeFileAtomically(file, "*\n");
}

/**
 * `.mpsync` must be a real folder: through a symbolic link (a cloned repository can contain
 * one), state, base texts and backups (content chosen by the service) would be written
 * wherever the link points. Creates the folder when missing.
 */
export async function assertStateDirSafe(dir: string): Promise<void> {
  const info = await lstat(dir).catch((err: unknown) => {
    if (isErrno(err, "ENOENT")) return undefined;
    throw err;
  });
  if (info === undefined) {
    await mkdir(dir, { recursive: true });
    return assertStateDirSafe(dir);
  }
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw new MpsyncError(
      "UNSAFE_STATE_DIR",
      `${dir} is ${info.isSymbolicLink() ? "a symbolic link" : "not a folder"}: mpsync keeps its state only in a real folder there, and stopped this folder`,
      {
        hint: `remove it (rm ${dir}) and run again; mpsync re-creates it`,
      },
    );
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
