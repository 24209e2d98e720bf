import { describe, expect, it } from "vitest";
import { judgeOtherWriter, RACE_WINDOW_MS, type PushRecord, type RemoteObservation, type WriterVerdict } from "./other-writers.js";

/** Our PATCH of App.tsx, answered at monotonic 10_000 on artifact a1. */
const record = (more: Partial<PushRecord> = {}): PushRecord => ({
  sent: "ours",
  artifactId: "a1",
  answeredAt: 10_000,
  confirmed: false,
  visibleToGenerations: false,
  mergedBack: false,
  ...more,
});
/** A read of App.tsx sent 100 ms after the answer, finding another writer's text without our edit. */
const seen = (more: Partial<RemoteObservation> = {}): RemoteObservation => ({
  artifactId: "a1",
  hash: "theirs",
  holdsEdit: false,
  ownLate: false,
  at: 10_100,
  ...more,
});

describe("judgeOtherWriter: who saw what, never a wall clock", () => {
  it.each<[string, PushRecord, RemoteObservation, WriterVerdict]>([
    // A teammate pulled our line and removed it; our edit had been confirmed visible.
    ["a teammate removes our line after a read past the window showed it: a decision", record({ confirmed: true }), seen({ at: 90_000 }), "decision"],
    ["a write in the moments after our answer, without our change: a race, merged back", record(), seen(), "race"],
    ["the same write found only later, with no confirming read between: still a race", record(), seen({ at: 10_000 + 10 * RACE_WINDOW_MS }), "race"],
    ["our merged-back edit removed again: the removal stands", record({ mergedBack: true }), seen(), "removed-again"],
    // Our own PATCH held past its timeout and applied after a newer one.
    [
      "our own unanswered, replaced text arriving late: send the latest again",
      record({ confirmed: true }),
      seen({ ownLate: true, hash: "old-ours" }),
      "own-late",
    ],
    ["our text, read within the window: holds, the record stays open", record(), seen({ hash: "ours", holdsEdit: true }), "holds"],
    ["our text, read after the window: confirmed", record(), seen({ hash: "ours", holdsEdit: true, at: 10_000 + RACE_WINDOW_MS }), "confirmed"],
    ["a text built on our edit, read after the window: confirmed", record(), seen({ holdsEdit: true, at: 10_000 + RACE_WINDOW_MS }), "confirmed"],
    [
      "a record from a previous process holding our text: confirmed at once",
      record({ answeredAt: undefined }),
      seen({ hash: "ours", holdsEdit: true }),
      "confirmed",
    ],
    // Generations, ordered by mpsync's own status observations.
    [
      "a version started after the service was seen idle holding our edit: a decision",
      record({ visibleToGenerations: true }),
      seen({ artifactId: "a2" }),
      "decision",
    ],
    ["a version already generating when our push landed: a race", record(), seen({ artifactId: "a2" }), "race"],
    [
      "a version the user asked for after the answer (prompt, checkout): a decision",
      record({ visibleToGenerations: true }),
      seen({ artifactId: "a2" }),
      "decision",
    ],
    ["a version built on our edit: holds", record(), seen({ artifactId: "a2", holdsEdit: true }), "holds"],
  ])("%s", (_name, r, s, verdict) => {
    expect(judgeOtherWriter(r, s)).toBe(verdict);
  });

  it("the verdict reads only monotonic times (no wall-clock field exists to step)", () => {
    // A read just inside the window never confirms, whatever the wall clock did meanwhile.
    expect(judgeOtherWriter(record(), seen({ hash: "ours", holdsEdit: true, at: 10_000 + RACE_WINDOW_MS - 1 }))).toBe("holds");
  });
});
