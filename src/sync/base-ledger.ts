/**
 * The one source of truth for each path's base: the content both sides last agreed on, and the
 * intent journals that keep that answer right across a crash or an answer lost on the way back
 * (an edit is never taken for landed, nor pulled over, on a guess). Every cycle reads the ledger
 * for bases (`read`, pure: what a journal supplies or a landed push shows comes back as data,
 * `LedgerReading`), journals its intents through it before acting (`intendPulls`,
 * `intendPush`), and hands it the reading with the base moves the executor confirmed
 * (`commit`): no cycle's data is kept in the ledger between those calls. The ledger owns `files`, `pending`, `pendingPush`, `landed` and
 * `unanswered`: nothing else writes them, and `toJSON` (what state.json gets) checks them first
 * (ledger-validation.ts: a violation is an INTERNAL error and nothing is written).
 *
 * The rules, in `resolveBase` and `read` below:
 * - a pulled write counts as done when the local file holds the journalled remote content
 *   (a crash between the write and the state save);
 * - a PATCH counts as landed only when its answer came back, or when the remote holds exactly
 *   what was sent. A remote that merely moved off the old content proves nothing: a refused or
 *   dropped PATCH followed by a generation looks the same, and taking the unsent edit as the
 *   base would pull the remote change over it.
 * - an answered PATCH stays open (`landed`, not `settled`) until a read after the race window
 *   shows the service holding it; a remote text of that artifact without the edit is judged by
 *   other-writers.ts (race or decision) in races.ts. A text sent by a PATCH whose answer never
 *   came and that a newer PATCH replaced is kept in `unanswered`: arriving late, it is ours.
 */
import type { BaseMove, LedgerData } from "./ports.js";
import { ensureValidLedger } from "./ledger-validation.js";
import type { DeepReadonly } from "../core/deep-readonly.js";
import { createSystemClock, type Clock } from "../core/clock.js";
import { judgeOtherWriter, type PushRecord } from "./other-writers.js";
import { resolveBase, type LandedPush, type PathReading } from "./ledger-reading.js";
import { dropUnanswered, keepUnanswered, nextLedger, type CycleOutcome } from "./ledger-next.js";

export type { LedgerData };
export { nextLedger, type CycleOutcome, type NextLedger } from "./ledger-next.js";
export {
  addReading,
  emptyReading,
  resolveBase,
  type LandedPush,
  type LedgerReading,
  type OpenPush,
  type PathReading,
  type ResolvedBase,
} from "./ledger-reading.js";

/** The bases of one folder and their journals. `save` persists the folder's state (toJSON among it). */
export class BaseLedger {
  #data: LedgerData;
  readonly #save: () => Promise<void>;
  readonly #clock: Pick<Clock, "now" | "monotonic">;
  /** Monotonic time of each landed PATCH's answer in this process (a record loaded from disk has none). */
  readonly #answeredAt = new Map<string, number>();
  /** The `files` object the last save checked (replaced, never edited, on each change). */
  #checkedFiles: LedgerData["files"] | undefined;

  constructor(data: LedgerData, save: () => Promise<void>, clock: Pick<Clock, "now" | "monotonic"> = createSystemClock()) {
    // A landed record whose base moved is inert (landedOn, landedElsewhere) and dropped by the
    // next commit; one an older state.json kept is dropped now, so every save is valid.
    const landed = Object.entries(data.landed ?? {}).filter(([path, l]) => data.files[path]?.hash === l.hash);
    this.#data = {
      files: data.files,
      pending: data.pending,
      pendingPush: data.pendingPush,
      landed: landed.length === 0 ? undefined : Object.fromEntries(landed),
      unanswered: data.unanswered,
    };
    this.#save = save;
    this.#clock = clock;
  }

  /** The confirmed base of `path`. */
  baseOf(path: string): string | undefined {
    return this.#data.files[path]?.hash;
  }

  /** Every path with a confirmed base. */
  paths(): string[] {
    return Object.keys(this.#data.files);
  }

  /** The ledger's fields as they stand (read-only: every change goes through a method). */
  get data(): DeepReadonly<LedgerData> {
    return this.#data;
  }

  /** The ledger's fields for state.json, checked first (ensureValidLedger throws INTERNAL). */
  toJSON(): LedgerData {
    ensureValidLedger(this.#data, { filesKnownGood: this.#data.files === this.#checkedFiles });
    this.#checkedFiles = this.#data.files;
    return this.#data;
  }

  /** Forgets every base (the mapping now points at another design); journals stay to be settled. */
  reset(): void {
    this.#data = { ...this.#data, files: {}, landed: undefined, unanswered: undefined };
    this.#answeredAt.clear();
  }

  /**
   * What the ledger says of `path` for a cycle (journals applied; see resolveBase). Pure: the
   * cycle collects the readings (addReading) and hands them to `begin`. `artifactId`: the
   * artifact the remote hash was read from, to judge this folder's answered PATCHes on it;
   * `readAt`: the monotonic time the remote read was sent.
   */
  read(path: string, localHash: string | undefined, remoteHash: string | undefined, artifactId?: string, readAt?: number): PathReading {
    const { base, fromJournal } = resolveBase(this.#data, path, localHash, remoteHash);
    const older = artifactId === undefined ? undefined : this.landedElsewhere(path, artifactId);
    const keptByNewVersion = older !== undefined && remoteHash === older.hash;
    const l = artifactId === undefined || fromJournal ? undefined : this.landedOn(path, artifactId);
    // A newer version without the text we sent is judged like any other writer (other-writers.ts):
    // unless it could have seen our edit, its generation was running when our PATCH landed.
    const displacedBy = older !== undefined && !keptByNewVersion && !fromJournal && remoteHash !== undefined ? older : undefined;
    const open = l !== undefined && l.settled !== true && remoteHash !== undefined ? l : displacedBy;
    const ownLate =
      remoteHash !== undefined &&
      !fromJournal &&
      remoteHash !== base &&
      remoteHash !== localHash &&
      this.#data.unanswered?.[path]?.includes(remoteHash) === true;
    const record = open === undefined ? undefined : this.pushRecord(path, open);
    const at = readAt ?? this.#clock.monotonic();
    const confirms =
      record !== undefined &&
      remoteHash === open!.hash &&
      judgeOtherWriter(record, { artifactId: artifactId!, hash: remoteHash, holdsEdit: true, ownLate: false, at }) === "confirmed";
    const contested = (open !== undefined && remoteHash !== open.hash) || ownLate ? { landed: open, record, ownLate, remoteHash: remoteHash! } : undefined;
    return { base, fromJournal, keptByNewVersion, contested, confirms };
  }

  /** What other-writers.ts needs of a landed PATCH. */
  pushRecord(path: string, l: LandedPush): PushRecord {
    return {
      sent: l.hash,
      artifactId: l.artifactId,
      answeredAt: this.#answeredAt.get(path),
      confirmed: l.settled === true,
      visibleToGenerations: l.visible === true,
      mergedBack: l.mergedBack === true,
    };
  }

  /**
   * The service was seen idle on `artifactId` by a status request sent at `sentAt` (monotonic):
   * every PATCH on it answered before then is part of what a later version was built on.
   * Returns true when a record changed.
   */
  seenIdle(artifactId: string, sentAt: number): boolean {
    return this.#markVisible((path, l) => {
      const answered = this.#answeredAt.get(path);
      return l.artifactId === artifactId && (answered === undefined || answered < sentAt);
    });
  }

  /** The user asked for a new version after these PATCHes were answered (path -> hash sent): they are part of it. */
  askedAfter(listed: Readonly<Record<string, string>>): boolean {
    return this.#markVisible((path, l) => listed[path] === l.hash);
  }

  /**
   * The user checked out a version after these texts of ours went out unanswered (path ->
   * hashes): one of them in the version chosen is the user's choice, not our request arriving
   * late (other-writers.ts). Texts sent after the checkout stay ours.
   */
  chosenOver(listed: Readonly<Record<string, readonly string[]>>): void {
    this.#data.unanswered = dropUnanswered(this.#data.unanswered, listed);
  }

  #markVisible(applies: (path: string, l: LandedPush) => boolean): boolean {
    const landed = this.#data.landed;
    if (landed === undefined) return false;
    const marked = Object.entries(landed).filter(([path, l]) => l.visible !== true && applies(path, l));
    if (marked.length === 0) return false;
    this.#data.landed = { ...landed, ...Object.fromEntries(marked.map(([path, l]) => [path, { ...l, visible: true as const }])) };
    return true;
  }

  /** Journals the remote contents a cycle is about to write (path -> content hash), then saves. */
  async intendPulls(pulls: ReadonlyMap<string, string>): Promise<void> {
    if (pulls.size === 0) return;
    this.#data.pending = { ...this.#data.pending, ...Object.fromEntries(pulls) };
    await this.#save();
  }

  /**
   * Journals texts a push pass may send (path -> hash), before it reads the remote: the read
   * its decision rests on and the PATCH then have no disk write between them. What it
   * replaces is not known yet (`previous` is filled in by intendPush, in memory).
   */
  async journalPush(hashes: ReadonlyMap<string, string>): Promise<void> {
    if (hashes.size === 0) return;
    const pendingPush = { ...this.#data.pendingPush };
    for (const [path, hash] of hashes) {
      const same = pendingPush[path]?.hash === hash;
      this.#supersede(path, hash);
      pendingPush[path] = same ? pendingPush[path]! : { hash, previous: null };
    }
    this.#data.pendingPush = pendingPush;
    await this.#save();
  }

  /**
   * Journals a PATCH about to be sent (path, hash sent, remote hash it replaces). Saved only
   * when a text was not journalled yet (a merge made this cycle): a crash needs only the hash
   * sent, and what it replaced is kept by the commit's save.
   */
  async intendPush(sent: readonly { path: string; hash: string; previous: string | null }[]): Promise<void> {
    const pendingPush = { ...this.#data.pendingPush };
    const fresh = sent.some((s) => pendingPush[s.path]?.hash !== s.hash);
    for (const s of sent) {
      const basis = s.previous === null ? this.baseOf(s.path) : undefined;
      this.#supersede(s.path, s.hash);
      pendingPush[s.path] = { hash: s.hash, previous: s.previous, ...(basis === undefined ? {} : { basis }), sent: true };
    }
    this.#data.pendingPush = pendingPush;
    if (fresh) await this.#save();
  }

  /** A journalled PATCH of `path` that went out unanswered is replaced by `hash`: kept as ours (`unanswered`). */
  #supersede(path: string, hash: string): void {
    const prior = this.#data.pendingPush?.[path];
    if (prior?.sent !== true || prior.hash === hash || prior.hash === this.baseOf(path)) return;
    this.#keepUnanswered(path, prior.hash);
  }

  #keepUnanswered(path: string, hash: string): void {
    this.#data.unanswered = keepUnanswered(this.#data.unanswered, path, hash);
  }

  /**
   * Records a cycle's outcome: the journal adoptions, then the executor's confirmed moves in
   * order. `pushAnswered`: every PATCH of the cycle was answered, so its journal becomes
   * `landed` on `artifactId`; otherwise it stays for the next cycle to judge. `mergedBack`:
   * paths whose PATCH merged back an edit a race removed. Returns true when anything the state
   * holds about bases changed (the caller saves).
   */
  commit(moves: readonly BaseMove[], outcome: CycleOutcome): boolean {
    const at = this.#clock.now();
    const answeredAt = this.#clock.monotonic();
    const next = nextLedger(this.#data, moves, outcome, at);
    for (const path of next.answered) this.#answeredAt.set(path, answeredAt);
    // Assigned field by field: `data` is one object for the ledger's life.
    Object.assign(this.#data, next.data);
    return next.changed;
  }

  /** The PATCH answered for `path` on `artifactId`, if the current base is what it sent. */
  landedOn(path: string, artifactId: string): LandedPush | undefined {
    const l = this.#data.landed?.[path];
    return l !== undefined && l.artifactId === artifactId && this.baseOf(path) === l.hash ? l : undefined;
  }

  /**
   * The PATCH answered for `path` on a version other than `artifactId`, if the current base is
   * what it sent: the file still holds an edit that version got (displaced.ts).
   */
  landedElsewhere(path: string, artifactId: string): LandedPush | undefined {
    const l = this.#data.landed?.[path];
    return l !== undefined && l.artifactId !== artifactId && this.baseOf(path) === l.hash ? l : undefined;
  }

  /** Base-text hashes still needed: the bases and everything the journals name. */
  keep(): Set<string> {
    const s = this.#data;
    const out = new Set(Object.values(s.files).map((f) => f.hash));
    for (const p of Object.values(s.pendingPush ?? {})) {
      out.add(p.hash);
      if (p.basis !== undefined) out.add(p.basis);
    }
    for (const hash of Object.values(s.pending ?? {})) out.add(hash);
    for (const hashes of Object.values(s.unanswered ?? {})) for (const h of hashes) out.add(h);
    for (const l of Object.values(s.landed ?? {})) {
      out.add(l.hash);
      if (l.previous !== null) out.add(l.previous);
      if (l.basis !== undefined) out.add(l.basis);
    }
    return out;
  }
}
