/**
 * Slow writers. A generator that truncates a file, pauses, then writes (`node gen.js >
 * App.tsx`), or an editor saving in chunks, writes through the descriptor it opened: once
 * mpsync has replaced the file by rename, those bytes go into the old file, which no name
 * shows any more. Two defences, for a write over a local edit (a conflict's write):
 *
 * - `waitUntilQuiet`: the file is replaced only once its size, time and inode stayed the same
 *   for QUIET_MS (chokidar's awaitWriteFinish, bounded by QUIET_MAX_MS); a write meanwhile
 *   fails the compare-and-swap, and the next cycle reads the whole text.
 * - `LateWriteWatch`: after the replace, the old file keeps a second name (replaceHeld's held
 *   link) for HOLD_MS and is watched. When it changes, the writer's text goes back under the
 *   file's name (mpsync's text, unchanged since, is backed up first) or, when the name changed
 *   again meanwhile, into a conflict copy; either way it is said, and the next cycle syncs the
 *   file as a local edit.
 */
import { lstatSync, renameSync, linkSync, unlinkSync, type Stats } from "node:fs";
import { lstat, readFile } from "node:fs/promises";
import { hashContent } from "../core/hash.js";
import { isErrno } from "../core/errors.js";

/** A file replaced over a local edit must have stayed unchanged this long first. */
export const QUIET_MS = 1000;
/** Longest wait for a file to be quiet; past it the replace is tried anyway (its compare-and-swap still guards it). */
export const QUIET_MAX_MS = 5000;
/** How long the old file of a replace stays watched for a writer's late bytes. */
export const HOLD_MS = 10_000;
/** How often a file being waited on or held is looked at. */
export const LOOK_MS = 100;

/** What the stat of a file says about its content: a write or a truncate changes it. */
function signature(st: Pick<Stats, "ino" | "size" | "mtimeMs">): string {
  return `${st.ino}:${st.size}:${st.mtimeMs}`;
}

/**
 * Resolves once `abs` has kept its size, modification time and inode for `quietMs` (a missing
 * file counts as quiet), or after `maxMs`. Durations on the monotonic `now`.
 */
export async function waitUntilQuiet(
  abs: string,
  o: { now: () => number; sleep: (ms: number) => Promise<void>; quietMs?: number; maxMs?: number; lookMs?: number },
): Promise<void> {
  const quietMs = o.quietMs ?? QUIET_MS;
  const start = o.now();
  let since = start;
  let last = await statSignature(abs);
  while (last !== undefined && o.now() - since < quietMs && o.now() - start < (o.maxMs ?? QUIET_MAX_MS)) {
    await o.sleep(o.lookMs ?? LOOK_MS);
    const now = await statSignature(abs);
    if (now !== last) since = o.now();
    last = now;
  }
}

async function statSignature(abs: string): Promise<string | undefined> {
  const st = await lstat(abs).catch(() => undefined);
  return st?.isFile() === true ? signature(st) : undefined;
}

/** The old file of a replace, held under a second name (atomic-write.ts replaceHeld). */
export interface HeldFile {
  /** The second name of the old file (a temp name, ignored by scans and the watcher). */
  held: string;
  /** The file's path, and relative to the mapped folder. */
  file: string;
  rel: string;
  /** The old file's stat just after the replace. */
  stat: Stats;
  /** The inode and content hash of what mpsync put under the name. */
  oursIno: number;
  oursHash: string;
}

/** A writer's late write, recovered. */
export interface LateWrite {
  rel: string;
  /** `restored`: the writer's text is back under the file's name; `copied`: in a conflict copy. */
  outcome: "restored" | "copied";
  /** Where mpsync's replaced text (restored) or the writer's text (copied) is kept, shown relative to the folder. */
  kept: string | undefined;
}

/** How a LateWriteWatch keeps copies and says what it recovered. */
export interface LateWriteOptions {
  /** The monotonic clock (ms). */
  now: () => number;
  /** Backs up the file at `rel` as it is now; resolves the copy's shown path. */
  backup: (rel: string) => Promise<string | undefined>;
  /** Keeps `text` as the local side of a conflict copy of `rel`; resolves its shown path. */
  conflictCopy: (rel: string, text: Buffer) => Promise<string | undefined>;
  onLateWrite: (w: LateWrite) => void;
  holdMs?: number;
  quietMs?: number;
  lookMs?: number;
}

interface Watched extends HeldFile {
  since: number;
  last: string;
  changedAt: number | undefined;
}

/** Watches the held old files of a folder's replaces for a writer's late bytes. */
export class LateWriteWatch {
  readonly #o: LateWriteOptions;
  readonly #held = new Map<string, Watched>();
  #timer: NodeJS.Timeout | undefined;
  #looking: Promise<void> | undefined;

  constructor(options: LateWriteOptions) {
    this.#o = options;
  }

  /** Takes over `h.held` (removed once HOLD_MS passed without a write, or once recovered). */
  keep(h: HeldFile): void {
    const previous = this.#held.get(h.file);
    if (previous !== undefined) unlinkQuietly(previous.held);
    this.#held.set(h.file, { ...h, since: this.#o.now(), last: signature(h.stat), changedAt: undefined });
    this.#timer ??= setInterval(() => void this.look(), this.#o.lookMs ?? LOOK_MS).unref();
  }

  /** Files held now (for tests). */
  get size(): number {
    return this.#held.size;
  }

  /** Looks at every held file once: a late write found quiet is recovered; an old hold ends. */
  look(): Promise<void> {
    this.#looking ??= this.#lookAll().finally(() => (this.#looking = undefined));
    return this.#looking;
  }

  /** Ends every hold (the folder closes): a late write not yet quiet is recovered now. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#looking;
    for (const w of [...this.#held.values()]) await this.#settle(w, w.changedAt !== undefined || signatureOf(w.held) !== w.last);
  }

  async #lookAll(): Promise<void> {
    const now = this.#o.now();
    const quietMs = this.#o.quietMs ?? QUIET_MS;
    for (const w of [...this.#held.values()]) {
      const sig = signatureOf(w.held);
      if (sig === undefined) {
        this.#drop(w);
        continue;
      }
      if (sig !== w.last) {
        w.last = sig;
        w.changedAt = now;
        continue;
      }
      if (w.changedAt !== undefined && now - w.changedAt >= quietMs) await this.#settle(w, true);
      else if (w.changedAt === undefined && now - w.since >= (this.#o.holdMs ?? HOLD_MS)) this.#drop(w);
    }
    if (this.#held.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  async #settle(w: Watched, written: boolean): Promise<void> {
    try {
      if (written) this.#o.onLateWrite(await this.#recover(w));
    } finally {
      this.#drop(w);
    }
  }

  /** The writer's text back under the name when ours is still there untouched, else a conflict copy. */
  async #recover(w: Watched): Promise<LateWrite> {
    const theirs = await readFile(w.held);
    const there = lstatSync(w.file, { throwIfNoEntry: false });
    const oursUntouched = there !== undefined && there.ino === w.oursIno && hashContent(await readFile(w.file)) === w.oursHash;
    if (there === undefined || oursUntouched) {
      const kept = there === undefined ? undefined : await this.#o.backup(w.rel);
      // Our text is replaced only if it is still the file there (a save by rename meanwhile wins);
      // a name left empty takes the writer's file without replacing anything made since (link).
      const now = lstatSync(w.file, { throwIfNoEntry: false });
      if (now === undefined) {
        if (tryLink(w.held, w.file)) return { rel: w.rel, outcome: "restored", kept };
      } else if (now.ino === w.oursIno) {
        renameSync(w.held, w.file);
        return { rel: w.rel, outcome: "restored", kept };
      }
    }
    return { rel: w.rel, outcome: "copied", kept: await this.#o.conflictCopy(w.rel, theirs) };
  }

  #drop(w: Watched): void {
    if (this.#held.get(w.file) === w) this.#held.delete(w.file);
    unlinkQuietly(w.held);
  }
}

function signatureOf(path: string): string | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return st === undefined ? undefined : signature(st);
}

function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (err) {
    if (isErrno(err, "EEXIST")) return false;
    throw err;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if (!isErrno(err, "ENOENT")) throw err;
  }
}
