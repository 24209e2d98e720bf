/**
 * Other writers: who saw what. The API has no compare-and-swap, so when the service holds a
 * text of a file we pushed that lacks our edit, mpsync must tell a race (a writer who could not
 * have seen our edit) from a decision (a writer who had seen it, or a version the user chose).
 * This module is the whole rule, as a pure function of data: what we know of our answered PATCH
 * (`PushRecord`) and what a read of the service found (`RemoteObservation`). Every interval in
 * it is measured on the monotonic clock: a wall-clock step never changes a verdict.
 *
 * - A text we sent earlier, whose answer never came, and have since replaced with a newer one,
 *   is our own request arriving late: the latest merged content is sent again (`own-late`).
 * - A text that holds our edit confirms it; read after the race window, it closes the record
 *   (`confirmed`): from then on our edit was visible to every reader.
 * - A text without our edit is a decision when its writer could have seen ours: the record was
 *   confirmed after the window (a teammate who pulled our edit and removed it), or a new version
 *   was started after the service was seen idle holding our edit, or after the user asked for
 *   it (`prompt`, `checkout`: state/version-intent.ts).
 * - Otherwise it is a race: our edit is merged back once and said. Removed again after that, the
 *   removal stands and is said once, with the `restore` that brings it back: no two writers can
 *   push one file back and forth.
 */

/**
 * How long after our PATCH's answer another writer's request may still land over it without
 * having seen our text: a writer that read before our PATCH landed sends at once, so its request
 * lands within moments (a round trip or two). A removal arriving later comes from someone who
 * pulled our edit first. Measured on the monotonic clock from the answer.
 */
export const RACE_WINDOW_MS = 5_000;

/** What we know of one answered PATCH of one path. */
export interface PushRecord {
  /** Hash of the text we sent. */
  sent: string;
  /** The artifact it was answered on. */
  artifactId: string;
  /** Monotonic time of the answer in this process; undefined for a record a previous process left. */
  answeredAt: number | undefined;
  /** A read after the race window found our text: the edit was visible to every reader since. */
  confirmed: boolean;
  /** The service was seen idle on `artifactId` after the answer, or the user asked for a version after it: a later version was built on it. */
  visibleToGenerations: boolean;
  /** This PATCH merged back an edit a race had removed: a second removal stands. */
  mergedBack: boolean;
}

/** What one read of the service found at the path. */
export interface RemoteObservation {
  /** The artifact the text was read from. */
  artifactId: string;
  /** Hash of the text read. */
  hash: string;
  /** The text still holds our edit (holds-edit.ts). */
  holdsEdit: boolean;
  /** The hash is a text we sent earlier without an answer and have since replaced. */
  ownLate: boolean;
  /** Monotonic time the read was sent. */
  at: number;
}

/** What to do about one observation of a pushed path. */
export type WriterVerdict =
  /** Our own late request: send the latest merged content again, never pull it. */
  | "own-late"
  /** The service holds our edit; `confirmed` closes the record (read after the window). */
  | "holds"
  | "confirmed"
  /** A writer who had seen our edit changed it: pull as usual, no word. */
  | "decision"
  /** A writer who could not have seen our edit: merge it back once, and say so. */
  | "race"
  /** Our merged-back edit was removed again: the removal stands, said once with `restore`. */
  | "removed-again";

/** The rule: one verdict per (record, observation). Pure. */
export function judgeOtherWriter(record: PushRecord, seen: RemoteObservation): WriterVerdict {
  if (seen.ownLate && seen.hash !== record.sent) return "own-late";
  if (seen.hash === record.sent || seen.holdsEdit) {
    const windowOver = record.answeredAt === undefined || seen.at - record.answeredAt >= RACE_WINDOW_MS;
    return windowOver ? "confirmed" : "holds";
  }
  if (seen.artifactId !== record.artifactId) return record.visibleToGenerations ? "decision" : record.mergedBack ? "removed-again" : "race";
  if (record.confirmed) return "decision";
  return record.mergedBack ? "removed-again" : "race";
}
