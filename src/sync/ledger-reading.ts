/**
 * What a cycle's reads of the ledger found, as data (BaseLedger.read, one path at a time): the
 * base of each path with the journals applied, the open PATCHes another writer's text may have
 * replaced, and the records the commit confirms or drops. Pure: the cycle hands the reading to
 * the ledger's commit, and nothing of it is kept in the ledger between those calls.
 */
import type { PushRecord } from "./other-writers.js";
import type { LedgerData } from "./ports.js";

/** A PATCH answered on an artifact: what was sent and what it replaced (see `landedOn`). */
export interface LandedPush {
  hash: string;
  previous: string | null;
  /**
   * With `previous` null (the service had no such file: a new file, or an edit pushed over a
   * remote deletion), the last synced text the edit was made on, if any: what the edit changed
   * is judged against it, not against an empty file (editBase).
   */
  basis?: string;
  artifactId: string;
  /** When the answer came (wall clock ms, shown only: every decision uses the monotonic clock). */
  at?: number;
  /** Seen on the service after the race window: later changes are other writers' decisions. */
  settled?: true;
  /** Seen idle on this artifact after the answer, or a prompt or version choice came after it. */
  visible?: true;
  /** This PATCH merged back an edit a race removed: a second removal stands. */
  mergedBack?: true;
}

/** The base chosen for one path, and whether a journal supplied it. */
export interface ResolvedBase {
  base: string | undefined;
  fromJournal: boolean;
}

/** What one read of the ledger found for a path (BaseLedger.read). */
export interface PathReading extends ResolvedBase {
  /** A landed push of an older version that the active version holds as sent: the record goes. */
  keptByNewVersion: boolean;
  /** A remote text another writer (or our own late request) put over an open PATCH: races.ts judges it. */
  contested: OpenPush | undefined;
  /** An answered PATCH seen as sent after the race window: settled by the commit. */
  confirms: boolean;
}

/** An open PATCH of one path and the remote text found over it, for other-writers.ts. */
export interface OpenPush {
  /** The answered PATCH (undefined: only `ownLate` is known). */
  landed: LandedPush | undefined;
  record: PushRecord | undefined;
  /** The remote text is one of our unanswered, replaced texts. */
  ownLate: boolean;
  remoteHash: string;
}

/** What a cycle's reads found, as data: the cycle hands it to BaseLedger.commit. */
export interface LedgerReading {
  /** Bases a journal supplied: recorded by the commit. */
  fromJournal: Map<string, string | undefined>;
  confirming: Set<string>;
  contested: Map<string, OpenPush>;
  keptByNewVersion: Set<string>;
}

/** A reading that found nothing. */
export function emptyReading(): LedgerReading {
  return { fromJournal: new Map(), confirming: new Set(), contested: new Map(), keptByNewVersion: new Set() };
}

/** Adds one path's reading to a cycle's. */
export function addReading(into: LedgerReading, path: string, r: PathReading): void {
  if (r.fromJournal) into.fromJournal.set(path, r.base);
  if (r.keptByNewVersion) into.keptByNewVersion.add(path);
  if (r.contested !== undefined) into.contested.set(path, r.contested);
  if (r.confirms) into.confirming.add(path);
}

/** The base of `path` given its local and remote content hashes. Pure. */
export function resolveBase(state: Readonly<LedgerData>, path: string, localHash: string | undefined, remoteHash: string | undefined): ResolvedBase {
  const base = state.files[path]?.hash;
  const pulled = state.pending?.[path];
  if (pulled !== undefined && localHash === pulled) return { base: pulled, fromJournal: true };
  const inFlight = state.pendingPush?.[path];
  if (inFlight !== undefined && base !== inFlight.hash && remoteHash === inFlight.hash) return { base: inFlight.hash, fromJournal: true };
  return { base, fromJournal: false };
}
