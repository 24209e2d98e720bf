/**
 * Another writer's PATCH landed over ours (the API has no compare-and-swap). Two people save
 * the same file within a moment: both read the old text, both PATCH, the later write wins, and
 * both clients were answered 200. The loser's next read of that artifact shows a text without
 * its edit while its answered PATCH is still open (base-ledger.ts); other-writers.ts decides
 * whether that writer could have seen the edit.
 *
 * For a race, pulling that text would drop the edit into `.mpsync/backups/` without a word.
 * Instead the path is reconciled from what our PATCH replaced (`previous`): our text and the
 * winner's are then two changes of one ancestor, so the merge policy writes both (a clean merge
 * is pushed again and said: "re-applied your edit") or markers and a conflict event. A remote
 * text that holds the edit, or a writer's decision, is pulled as usual.
 */
import type { LandedPush, OpenPush } from "./base-ledger.js";
import { holdsEdit, holdsWhole } from "./holds-edit.js";
import type { FileTriple } from "./model.js";
import { judgeOtherWriter } from "./other-writers.js";

/** Stored texts by hash (observe-cycle.ts readEditTexts): what the judge compares. */
export type EditTexts = ReadonlyMap<string, string>;

/**
 * The hash of the text a landed push's edit was made on: what the PATCH replaced, or, where the
 * service had no such file, the last synced text the edit was made on (`basis`: an edit pushed
 * over a remote deletion; judged against an empty file, a teammate's text sharing most old lines
 * passes for one built on the edit, and the edit is lost). Null: a new file (an empty text).
 */
export function editBaseHash(landed: LandedPush): string | null {
  return landed.previous ?? landed.basis ?? null;
}

/** What other-writers.ts decided for a cycle's contested paths. */
export interface WriterVerdicts {
  /** Races: reconciled from what our PATCH replaced, so the edit is merged back (said as re-applied). */
  raced: Set<string>;
  /** Races with a new version (its generation was already running when our PATCH landed): said as such. */
  racedByVersion: Set<string>;
  /** Races whose file holds nothing newer than the raced edit: the PATCH that follows only merges it back (a second removal stands). */
  mergedBack: Set<string>;
  /** Our merged-back edit was removed again: the removal stands (said once, with restore). */
  removedAgain: Set<string>;
  /** Our own late request: reconciled from it, so the latest content is sent again. */
  ownLate: Set<string>;
}

/**
 * Judges each path whose open PATCH the remote no longer holds as sent (other-writers.ts), and
 * returns the triples with races and our own late requests rebased (the others as they were).
 * A path whose stored texts are missing keeps its base (the pull backs the file up as before).
 */
export function judgeWriters(
  files: readonly FileTriple[],
  contested: ReadonlyMap<string, OpenPush>,
  remote: { artifactId: string; texts: ReadonlyMap<string, string> },
  texts: EditTexts,
  readAt: number,
): { files: FileTriple[]; verdicts: WriterVerdicts } {
  const out: WriterVerdicts = { raced: new Set(), racedByVersion: new Set(), mergedBack: new Set(), removedAgain: new Set(), ownLate: new Set() };
  if (contested.size === 0) return { files: [...files], verdicts: out };
  const rebased = files.map((triple) => {
    const open = contested.get(triple.path);
    const now = remote.texts.get(triple.path);
    if (open === undefined || now === undefined) return triple;
    const holds = open.landed === undefined ? false : holdsOurEdit(open.landed, now, texts, open.landed.artifactId !== remote.artifactId);
    if (holds === undefined) return triple;
    const record = open.record ?? {
      sent: "",
      artifactId: remote.artifactId,
      answeredAt: undefined,
      confirmed: false,
      visibleToGenerations: false,
      mergedBack: false,
    };
    const verdict = judgeOtherWriter(record, { artifactId: remote.artifactId, hash: open.remoteHash, holdsEdit: holds, ownLate: open.ownLate, at: readAt });
    // A file deleted here (or a folder gone) has no content to send again and no edit to merge
    // back: the plain reconcile judges it (a remote change over a local deletion is pulled).
    if (triple.local === undefined) return triple;
    // Judged against another base, a local text equal to it is still an edit of the synced one.
    const edited = triple.local.hash !== triple.base ? { localEdited: true as const } : {};
    if (verdict === "own-late") {
      out.ownLate.add(triple.path);
      return { ...triple, ...edited, base: open.remoteHash };
    }
    if (verdict === "race" && open.landed !== undefined) {
      out.raced.add(triple.path);
      if (open.landed.artifactId !== remote.artifactId) out.racedByVersion.add(triple.path);
      // A new local edit goes out with the merge: that PATCH carries an edit of its own.
      if (triple.local?.hash === open.landed.hash) out.mergedBack.add(triple.path);
      // Reconciled against the text the edit was judged on (what it replaced, else its basis).
      return { ...triple, ...edited, base: open.landed.previous ?? open.landed.basis };
    }
    if (verdict === "removed-again") out.removedAgain.add(triple.path);
    return triple;
  });
  return { files: rebased, verdicts: out };
}

/** Does `now` hold the edit of `landed` (`whole`: all of it, holds-edit.ts)? Undefined when a stored text is missing. */
function holdsOurEdit(landed: LandedPush, now: string, texts: EditTexts, whole: boolean): boolean | undefined {
  const sent = texts.get(landed.hash);
  const beforeHash = editBaseHash(landed);
  const before = beforeHash === null ? "" : texts.get(beforeHash);
  if (sent === undefined || before === undefined) return undefined;
  return whole ? holdsWhole(before, sent, now) : holdsEdit(before, sent, now);
}
