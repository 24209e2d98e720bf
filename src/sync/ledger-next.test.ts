import { describe, expect, it } from "vitest";
import { emptyReading } from "./ledger-reading.js";
import { nextLedger } from "./ledger-next.js";
import type { LedgerData } from "./ports.js";

/** Freezes `value` and everything in it: a pure function that wrote to it would throw. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe("nextLedger: the ledger after a cycle, from the one before it", () => {
  it("an answered PATCH becomes landed and names its path as answered; the previous ledger is left as it was", () => {
    const previous: LedgerData = deepFreeze({ files: { "a.ts": { hash: "B" } }, pendingPush: { "a.ts": { hash: "X", previous: "B", sent: true } } });
    const copy = structuredClone(previous);
    const next = nextLedger(
      previous,
      [{ path: "a.ts", hash: "X" }],
      { reading: emptyReading(), sent: new Set(["a.ts"]), pushAnswered: true, artifactId: "a1" },
      7,
    );
    expect(next).toEqual({
      data: {
        files: { "a.ts": { hash: "X" } },
        pending: undefined,
        pendingPush: undefined,
        landed: { "a.ts": { hash: "X", previous: "B", artifactId: "a1", at: 7 } },
        unanswered: undefined,
      },
      changed: true,
      answered: ["a.ts"],
    });
    expect(previous).toEqual(copy);
  });

  it("a PATCH sent without an answer that this cycle replaced is kept as ours (unanswered)", () => {
    const previous: LedgerData = deepFreeze({ files: { "a.ts": { hash: "B" } }, pendingPush: { "a.ts": { hash: "X", previous: "B", sent: true } } });
    const next = nextLedger(previous, [{ path: "a.ts", hash: "R" }], { reading: emptyReading(), sent: new Set(), pushAnswered: true, artifactId: "a1" }, 7);
    expect(next.data.unanswered).toEqual({ "a.ts": ["X"] });
    expect(next.data.landed).toBeUndefined();
    expect(next.answered).toEqual([]);
  });

  it.each([
    ["its latest content sent again and answered: the late text is ours no more", true, ["a.ts"], { "a.ts": ["Y"] }],
    ["the send failed: still ours, for the next cycle to judge", false, ["a.ts"], { "a.ts": ["X", "Y"] }],
    ["nothing sent for it: still ours", true, [], { "a.ts": ["X", "Y"] }],
  ])("our late request seen on the service, %s", (_name, answered, sent, unanswered) => {
    const previous: LedgerData = deepFreeze({ files: { "a.ts": { hash: "R" } }, unanswered: { "a.ts": ["X", "Y"] } });
    const reading = emptyReading();
    reading.contested.set("a.ts", { landed: undefined, record: undefined, ownLate: true, remoteHash: "X" });
    const next = nextLedger(previous, [], { reading, sent: new Set(sent), pushAnswered: answered, artifactId: "a1" }, 7);
    expect(next.data.unanswered).toEqual(unanswered);
  });

  it("the same text sent again keeps what its edit was made on, on the artifact it now landed on", () => {
    const previous: LedgerData = deepFreeze({
      files: { "a.ts": { hash: "X" } },
      landed: { "a.ts": { hash: "X", previous: "B", artifactId: "a1", at: 1 } },
      pendingPush: { "a.ts": { hash: "X", previous: "L", sent: true } },
    });
    const next = nextLedger(
      previous,
      [{ path: "a.ts", hash: "X" }],
      { reading: emptyReading(), sent: new Set(["a.ts"]), pushAnswered: true, artifactId: "a2" },
      7,
    );
    expect(next.data.landed).toEqual({ "a.ts": { hash: "X", previous: "B", artifactId: "a2", at: 7 } });
  });

  it("an unanswered cycle keeps its journal for the next cycle to judge", () => {
    const previous: LedgerData = deepFreeze({ files: { "a.ts": { hash: "B" } }, pendingPush: { "a.ts": { hash: "X", previous: "B", sent: true } } });
    const next = nextLedger(previous, [], { reading: emptyReading(), sent: new Set(), pushAnswered: false, artifactId: "a1" }, 7);
    expect(next.data.pendingPush).toBe(previous.pendingPush);
    expect(next.changed).toBe(false);
  });
});
