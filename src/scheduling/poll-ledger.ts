/** Where the last status poll of each design is remembered, across commands and restarts. */
import { basename, dirname, join } from "node:path";
import * as z from "zod";
import { JsonMapFile } from "./json-map-file.js";
import { createFileClaims, type ClaimIdentity, type PollClaim, type PollClaims } from "./poll-claim.js";

export type { PollClaim } from "./poll-claim.js";

/** Last poll time per design (epoch milliseconds), the last answer, and the claim of the next poll. */
export interface PollLedger {
  get(editorId: string): Promise<number | undefined>;
  set(editorId: string, epochMs: number): Promise<void>;
  /** The newest answer any process recorded (a ledger without answers shares none). */
  getAnswer?(editorId: string): Promise<PollAnswer | undefined>;
  /** Records a poll's answer; called before `set` of the same poll. */
  setAnswer?(editorId: string, answer: PollAnswer): Promise<void>;
  /** Claims the next poll of `editorId` across processes (a ledger without claims: every caller polls). */
  claim?: PollClaims["claim"];
  breakClaim?: PollClaims["breakClaim"];
}

/** One poll's answer, as JSON, and when it arrived (epoch milliseconds); `null` for a failed poll. */
export interface PollAnswer {
  at: number;
  answer: unknown;
}

/**
 * Entries of designs not polled for this long are dropped when the files are written: longer
 * than the longest `pollIntervalSec` (1 day), so no dropped entry could still hold a poll back.
 */
export const POLL_RECORD_KEEP_MS = 7 * 86_400_000;

/** A ledger that lives as long as the process (tests, one-shot library use); its claims are this process's. */
export function createMemoryPollLedger(): PollLedger {
  const times = new Map<string, number>();
  const answers = new Map<string, PollAnswer>();
  const claims = new Map<string, { holder: string; since: number }>();
  let claimCount = 0;
  return {
    get: (editorId) => Promise.resolve(times.get(editorId)),
    set: (editorId, epochMs) => {
      times.set(editorId, epochMs);
      return Promise.resolve();
    },
    getAnswer: (editorId) => Promise.resolve(answers.get(editorId)),
    setAnswer: (editorId, answer) => {
      answers.set(editorId, answer);
      return Promise.resolve();
    },
    claim: (editorId, at): Promise<PollClaim> => {
      const current = claims.get(editorId);
      if (current !== undefined) return Promise.resolve({ held: false, holder: current.holder, since: current.since, alive: true });
      const holder = `claim-${++claimCount}`;
      claims.set(editorId, { holder, since: at });
      return Promise.resolve({ held: true, release: () => Promise.resolve(void removeClaim(claims, editorId, holder)) });
    },
    breakClaim: (editorId, holder) => Promise.resolve(void removeClaim(claims, editorId, holder)),
  };
}

function removeClaim(claims: Map<string, { holder: string }>, editorId: string, holder: string): void {
  if (claims.get(editorId)?.holder === holder) claims.delete(editorId);
}

// The shapes of 0.1's files, kept: an older mpsync reads them with exactly these schemas, and one
// entry of another shape (or a key beside the designs) would make it read the whole map as empty.
const pollMapSchema = z.record(z.string(), z.number().finite());
const answerMapSchema = z.record(z.string(), z.object({ at: z.number().finite(), answer: z.unknown() }));

/**
 * A ledger shared by every mpsync process: `polls.json` `{ "<editorId>": epochMs }` (the poll
 * times), `polls.answers.json` beside it (`{ "<editorId>": { at, answer } }`) and the claims in
 * `polls.claims/` (poll-claim.ts). A poll writes one file: the times. Its answer is written
 * only when it differs from the stored one (a generation starts or ends, a new version, a
 * failed poll's `null`), so a reader takes the stored answer as the one of the last poll time.
 */
export function createFilePollLedger(file: string, identity: ClaimIdentity = {}): PollLedger {
  // Written after every status poll, before its answer is used: an fsync there would delay each new
  // version's pull by a disk flush. A power loss that undoes the last entry allows
  // one poll early, nothing worse.
  const times = new JsonMapFile(file, pollMapSchema, { durable: false });
  const stem = join(dirname(file), basename(file).replace(/\.json$/, ""));
  const answers = new JsonMapFile(`${stem}.answers.json`, answerMapSchema, { durable: false });
  const claims = createFileClaims(`${stem}.claims`, identity);
  return {
    get: async (editorId) => (await times.read())[editorId],
    // The caller holds the design's claim, so its poll is the latest: written as is, which also
    // replaces a time stamped in the future (a wall clock set back since).
    set: (editorId, epochMs) => times.update((map) => prune({ ...map, [editorId]: epochMs }, epochMs, (at) => at)),
    getAnswer: async (editorId) => {
      // The time first: an answer written between the two reads then looks older, never newer.
      const at = (await times.read())[editorId];
      const entry = (await answers.read())[editorId];
      if (entry === undefined) return undefined;
      return { at: at ?? entry.at, answer: entry.answer };
    },
    setAnswer: async (editorId, answer) => {
      const stored = (await answers.read())[editorId];
      if (stored !== undefined && JSON.stringify(stored.answer) === JSON.stringify(answer.answer)) return;
      await answers.update((map) => prune({ ...map, [editorId]: answer }, answer.at, (entry) => entry.at));
    },
    claim: claims.claim,
    breakClaim: claims.breakClaim,
  };
}

/** `map` without the entries older than POLL_RECORD_KEEP_MS before `now` (a poll's time). */
function prune<V>(map: Record<string, V>, now: number, timeOf: (value: V) => number): Record<string, V> {
  return Object.fromEntries(Object.entries(map).filter(([, value]) => now - timeOf(value) <= POLL_RECORD_KEEP_MS));
}
