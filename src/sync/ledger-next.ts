/**
 * The ledger after a cycle, as a pure function of the ledger before it, the cycle's reading
 * (ledger-reading.ts) and the base moves its writes confirmed: BaseLedger.commit applies it.
 */
import type { LedgerReading } from "./ledger-reading.js";
import type { BaseMove, LedgerData } from "./ports.js";

/** Unanswered texts kept per path (a late request older than these is not expected). */
export const UNANSWERED_KEPT = 4;

/** What one cycle hands `commit`: its reads (data, never parked in the ledger) and what its PATCHes did. */
export interface CycleOutcome {
  /** What the cycle's reads of the ledger found (buildTriples). */
  reading: LedgerReading;
  /** Paths whose PATCH this cycle sent and the service answered: only these become `landed`. */
  sent: ReadonlySet<string>;
  /** Every PATCH of the cycle was answered (its journal becomes `landed`; otherwise it stays). */
  pushAnswered: boolean;
  /** The artifact the cycle read and wrote. */
  artifactId: string;
  /** Paths whose PATCH only merged back an edit a race removed (races.ts). */
  mergedBack?: ReadonlySet<string>;
}

/** The next ledger, whether anything about bases changed (the caller saves), and the paths whose PATCH landed now. */
export interface NextLedger {
  data: LedgerData;
  changed: boolean;
  /** Paths whose journalled PATCH became `landed` (their answer time is this process's to keep). */
  answered: string[];
}

/** `unanswered` with `hash` kept as an unanswered text of ours at `path` (the newest last). */
export function keepUnanswered(unanswered: LedgerData["unanswered"], path: string, hash: string): NonNullable<LedgerData["unanswered"]> {
  const kept = (unanswered?.[path] ?? []).filter((h) => h !== hash);
  return { ...unanswered, [path]: [...kept, hash].slice(-UNANSWERED_KEPT) };
}

/** `unanswered` without the texts `drop` lists (path -> hashes): they are ours in flight no more. */
export function dropUnanswered(unanswered: LedgerData["unanswered"], drop: Readonly<Record<string, readonly string[]>>): LedgerData["unanswered"] {
  if (unanswered === undefined) return undefined;
  const kept = Object.entries(unanswered)
    .map(([path, hashes]) => [path, hashes.filter((h) => drop[path]?.includes(h) !== true)] as const)
    .filter(([, hashes]) => hashes.length > 0);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/**
 * The journal's bases first, then the executor's confirmed moves in order. `pushAnswered`:
 * every PATCH of the cycle was answered, so its journal becomes `landed` on `artifactId` at
 * `at` (wall clock, shown only); otherwise it stays for the next cycle to judge.
 */
export function nextLedger(previous: Readonly<LedgerData>, moves: readonly BaseMove[], outcome: CycleOutcome, at: number): NextLedger {
  const { fromJournal, confirming, keptByNewVersion } = outcome.reading;
  const sentNow = outcome.sent;
  const files = { ...previous.files };
  const set = (path: string, hash: string | undefined): void => {
    if (hash === undefined) delete files[path];
    else files[path] = { hash };
  };
  for (const [path, hash] of fromJournal) set(path, hash);
  for (const m of moves) set(m.path, m.hash);
  let changed = moves.length > 0 || fromJournal.size > 0 || previous.pending !== undefined;
  // A landed push lives while the file's base is what it sent: a version built without it
  // (displaced.ts) is judged whenever that path is next pulled, even several versions later
  // (a path a cycle skipped, such as one hidden by a refused case twin, keeps its record).
  // A newer version that holds the text as sent kept the edit: the record goes.
  // A new object, filled in place: a push of thousands of files must not copy it once per file.
  const landed =
    previous.landed === undefined
      ? {}
      : Object.fromEntries(Object.entries(previous.landed).filter(([path, l]) => files[path]?.hash === l.hash && !keptByNewVersion.has(path)));
  for (const path of confirming) {
    const l = landed[path];
    if (l !== undefined && files[path]?.hash === l.hash) {
      landed[path] = { ...l, settled: true };
      changed = true;
    }
  }
  let { pendingPush, unanswered } = previous;
  const answered: string[] = [];
  // A PATCH whose answer was lost, found on the service as sent: it landed, and another writer
  // may still land over it in the moments after, like any answered PATCH. Its race window runs
  // from this read: when it landed before that is not known.
  for (const [path, hash] of fromJournal) {
    const p = pendingPush?.[path];
    if (p?.sent !== true || p.hash !== hash || hash === undefined) continue;
    landed[path] = { hash, previous: p.previous, ...(p.basis === undefined ? {} : { basis: p.basis }), artifactId: outcome.artifactId, at };
    answered.push(path);
  }
  if (outcome.pushAnswered && pendingPush !== undefined) {
    const moved = new Set([...moves.map((m) => m.path), ...fromJournal.keys()]);
    const unresolved: NonNullable<LedgerData["pendingPush"]> = {};
    for (const [path, { sent, ...p }] of Object.entries(pendingPush)) {
      if (sent === true && !sentNow.has(path) && files[path]?.hash !== p.hash) {
        // An earlier cycle's PATCH, never answered, that this cycle's outcome replaced (a
        // conflict resolved for the remote side): it may still land, and is ours if it does.
        if (moved.has(path)) unanswered = keepUnanswered(unanswered, path, p.hash);
        // A path this cycle did not settle (a file deleted here before any read found where
        // that PATCH went): still in flight, for the next read to find on the service or not.
        else unresolved[path] = { ...p, sent };
        continue;
      }
      if (!sentNow.has(path) || files[path]?.hash !== p.hash) continue;
      // The same text sent again (over our own late request, or over a writer who put back what
      // our PATCH replaced) carries the same edit: judged against what that edit was made on,
      // not against the text it now replaced (which would make another writer's lines ours).
      const again = landed[path]?.hash === p.hash ? landed[path] : undefined;
      const made = again === undefined ? { previous: p.previous, basis: p.basis } : { previous: again.previous, basis: again.basis };
      landed[path] = {
        hash: p.hash,
        previous: made.previous,
        ...(made.basis === undefined ? {} : { basis: made.basis }),
        artifactId: outcome.artifactId,
        at,
        ...(outcome.mergedBack?.has(path) === true ? { mergedBack: true as const } : {}),
      };
      answered.push(path);
    }
    pendingPush = Object.keys(unresolved).length === 0 ? undefined : unresolved;
    changed = true;
  }
  // Our late request, seen on the service and answered by the latest content sent again: a
  // request is applied once, so that text is no longer ours in flight (another writer's same text later is theirs).
  const seenLate = [...outcome.reading.contested].filter(([path, c]) => c.ownLate && outcome.pushAnswered && sentNow.has(path));
  if (seenLate.length > 0) {
    unanswered = dropUnanswered(unanswered, Object.fromEntries(seenLate.map(([path, c]) => [path, [c.remoteHash]])));
    changed = true;
  }
  const landedCount = Object.keys(landed).length;
  if (landedCount !== Object.keys(previous.landed ?? {}).length) changed = true;
  return { data: { files, pending: undefined, pendingPush, landed: landedCount === 0 ? undefined : landed, unanswered }, changed, answered };
}
