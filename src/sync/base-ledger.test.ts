import { describe, expect, it } from "vitest";
import { addReading, BaseLedger, emptyReading, resolveBase, type CycleOutcome } from "./base-ledger.js";
import { RACE_WINDOW_MS } from "./other-writers.js";
import type { PersistedState } from "./ports.js";

const B = "b".repeat(64);
const X = "c".repeat(64);
const R = "d".repeat(64);

function state(extra: Partial<PersistedState> = {}): PersistedState {
  return { files: { "a.ts": { hash: B } }, ...extra };
}

/** A ledger on a clock: `now` is the wall clock; the monotonic clock reads `monotonic` (default: the same). */
function ledgerOf(s: PersistedState, now: () => number = () => 1_000, monotonic: () => number = now): { ledger: BaseLedger; saves: () => number } {
  let saves = 0;
  const ledger = new BaseLedger(
    s,
    () => {
      saves += 1;
      return Promise.resolve();
    },
    { now, monotonic },
  );
  return { ledger, saves: () => saves };
}

/** The reading of the cycle under test (readPath), handed to its commit as a cycle does. */
let cycleReading = emptyReading();

/** One cycle's read of `path` (buildTriples): starts the cycle's reading. */
function readPath(ledger: BaseLedger, path: string, local: string | undefined, remote: string | undefined, artifactId?: string): string | undefined {
  cycleReading = emptyReading();
  const r = ledger.read(path, local, remote, artifactId);
  addReading(cycleReading, path, r);
  return r.base;
}

/** A cycle's outcome: its reading, and as sent every path its PATCHes journalled as sent (intendPush). */
function done(ledger: BaseLedger, pushAnswered: boolean, artifactId: string): CycleOutcome {
  const sent = Object.entries(ledger.data.pendingPush ?? {}).flatMap(([path, p]) => (p.sent === true && pushAnswered ? [path] : []));
  const outcome = { reading: cycleReading, sent: new Set(sent), pushAnswered, artifactId };
  cycleReading = emptyReading();
  return outcome;
}

describe("resolveBase", () => {
  it.each([
    ["no journal: the recorded base", state(), B, R, { base: B, fromJournal: false }],
    ["a pulled write that died before the save: adopted", state({ pending: { "a.ts": X } }), X, R, { base: X, fromJournal: true }],
    ["a pending pull the file does not hold: ignored", state({ pending: { "a.ts": X } }), R, R, { base: B, fromJournal: false }],
    [
      "a PATCH that did not land (remote still as before): recorded base",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      X,
      B,
      { base: B, fromJournal: false },
    ],
    [
      "the remote moved elsewhere (a failed PATCH, then a remote edit): no proof, the recorded base",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      X,
      R,
      { base: B, fromJournal: false },
    ],
    [
      "a PATCH that landed, then the file was deleted locally: the pushed content",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      undefined,
      X,
      { base: X, fromJournal: true },
    ],
    [
      "a PATCH that landed, then edited locally again: the pushed content",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      R,
      X,
      { base: X, fromJournal: true },
    ],
    [
      "a new file whose PATCH did not land: no base",
      { files: {}, pendingPush: { "a.ts": { hash: X, previous: null } } },
      X,
      undefined,
      { base: undefined, fromJournal: false },
    ],
  ] as const)("%s", (_name, s, local, remote, want) => {
    expect(resolveBase(s as PersistedState, "a.ts", local, remote)).toEqual(want);
  });
});

describe("BaseLedger", () => {
  it("journals intents with a save each, and keep() names every text they need", async () => {
    const s = state();
    const { ledger, saves } = ledgerOf(s);
    await ledger.intendPulls(new Map([["p.ts", R]]));
    await ledger.intendPush([{ path: "a.ts", hash: X, previous: B }]);
    await ledger.intendPulls(new Map());
    expect(saves()).toBe(2);
    expect(ledger.data.pending).toEqual({ "p.ts": R });
    expect(ledger.data.pendingPush).toEqual({ "a.ts": { hash: X, previous: B, sent: true } });
    expect([...ledger.keep()].sort()).toEqual([B, X, R].sort());
  });

  it("a push journalled before the read is saved once; its PATCH then saves nothing more, and only what was sent can land", async () => {
    const s = state();
    const { ledger, saves } = ledgerOf(s);
    await ledger.journalPush(
      new Map([
        ["a.ts", X],
        ["b.ts", R],
      ]),
    );
    expect(ledger.data.pendingPush).toEqual({ "a.ts": { hash: X, previous: null }, "b.ts": { hash: R, previous: null } });
    await ledger.intendPush([{ path: "a.ts", hash: X, previous: B }]);
    expect(saves()).toBe(1);
    expect(ledger.data.pendingPush?.["a.ts"]).toEqual({ hash: X, previous: B, sent: true });
    ledger.commit(
      [
        { path: "a.ts", hash: X },
        { path: "b.ts", hash: R },
      ],
      done(ledger, true, "art-1"),
    );
    expect(ledger.landedOn("a.ts", "art-1")).toMatchObject({ hash: X, previous: B });
    // b.ts was journalled but not sent (the remote already held it): no claim that we wrote it.
    expect(ledger.landedOn("b.ts", "art-1")).toBeUndefined();
    expect(ledger.data.pendingPush).toBeUndefined();
  });

  it("commit applies adoptions, then the executor's moves in order; an answered PATCH becomes landed", async () => {
    const s = state({ pending: { "p.ts": R } });
    const { ledger } = ledgerOf(s);
    expect(readPath(ledger, "p.ts", R, undefined)).toBe(R);
    await ledger.intendPush([{ path: "a.ts", hash: X, previous: B }]);
    const changed = ledger.commit(
      [
        { path: "a.ts", hash: R },
        { path: "a.ts", hash: X },
        { path: "gone.ts", hash: undefined },
      ],
      done(ledger, true, "art-1"),
    );
    expect(changed).toBe(true);
    expect(ledger.data.files).toEqual({ "a.ts": { hash: X }, "p.ts": { hash: R } });
    expect(ledger.data.pending).toBeUndefined();
    expect(ledger.data.pendingPush).toBeUndefined();
    expect(ledger.landedOn("a.ts", "art-1")).toEqual({ hash: X, previous: B, artifactId: "art-1", at: 1_000 });
    expect(ledger.landedOn("a.ts", "art-2")).toBeUndefined();
  });

  describe("an answered PATCH another writer may still overwrite (other-writers.ts, RACE_WINDOW_MS)", () => {
    const landedState = (): PersistedState =>
      state({ files: { "a.ts": { hash: X } }, landed: { "a.ts": { hash: X, previous: B, artifactId: "art-1", at: 1_000 } } });

    /** A ledger whose PATCH of a.ts (B -> X) was sent at `clock`; `answer`: the commit heard its answer. */
    async function sent(clock: { wall: number; mono: number }, answer: boolean): Promise<BaseLedger> {
      const { ledger } = ledgerOf(
        state(),
        () => clock.wall,
        () => clock.mono,
      );
      readPath(ledger, "a.ts", X, B, "art-1");
      await ledger.intendPush([{ path: "a.ts", hash: X, previous: B }]);
      ledger.commit(answer ? [{ path: "a.ts", hash: X }] : [], done(ledger, answer, "art-1"));
      return ledger;
    }

    /** A ledger whose PATCH of a.ts (B -> X) is answered in this process at monotonic 1_000. */
    const answered = (clock: { wall: number; mono: number }): Promise<BaseLedger> => sent(clock, true);

    it("a PATCH whose answer was lost, found on the service as sent: landed, and another writer's text over it within the window is judged", async () => {
      const clock = { wall: 1_000, mono: 1_000 };
      const ledger = await sent(clock, false);
      expect(ledger.data.landed).toBeUndefined();
      clock.mono = 3_000;
      expect(readPath(ledger, "a.ts", X, X, "art-1")).toBe(X);
      ledger.commit([], done(ledger, true, "art-1"));
      expect(ledger.data.landed?.["a.ts"]).toMatchObject({ hash: X, previous: B, artifactId: "art-1" });
      clock.mono = 3_000 + RACE_WINDOW_MS - 1;
      const r = ledger.read("a.ts", X, R, "art-1");
      expect(r.contested).toMatchObject({ remoteHash: R, landed: { hash: X } });
      expect(ledger.pushRecord("a.ts", r.contested!.landed!).answeredAt).toBe(3_000);
    });

    it("a remote text other than the one sent, on the same artifact, is judged; its base stays until races.ts decides", () => {
      const { ledger } = ledgerOf(landedState(), () => 2_000);
      const r = ledger.read("a.ts", X, R, "art-1");
      expect(r.base).toBe(X);
      expect(r.contested).toMatchObject({ remoteHash: R, ownLate: false, landed: { hash: X } });
    });

    it("a newer version without the text sent is judged like any other writer; one holding it as sent carries the record", () => {
      const { ledger } = ledgerOf(landedState(), () => 2_000);
      expect(ledger.read("a.ts", X, R, "art-2").contested).toMatchObject({ remoteHash: R, ownLate: false, landed: { hash: X, artifactId: "art-1" } });
      const kept = ledger.read("a.ts", X, X, "art-2");
      expect([kept.contested, kept.keptByNewVersion]).toEqual([undefined, true]);
    });

    it("seen as sent within the window (monotonic): still open; after it: settled by the commit, and never judged again", async () => {
      const clock = { wall: 1_000, mono: 1_000 };
      const ledger = await answered(clock);
      clock.mono = 1_000 + RACE_WINDOW_MS - 1;
      expect(ledger.read("a.ts", X, X, "art-1").confirms).toBe(false);
      clock.mono = 1_000 + RACE_WINDOW_MS;
      readPath(ledger, "a.ts", X, X, "art-1");
      expect(ledger.commit([], done(ledger, true, "art-1"))).toBe(true);
      expect(ledger.data.landed?.["a.ts"]?.settled).toBe(true);
      expect(ledger.read("a.ts", X, R, "art-1").contested).toBeUndefined();
    });

    it.each([
      ["a day ahead", 86_400_000],
      ["two hours back", -7_200_000],
    ])("a wall clock stepped %s changes nothing: the record stays open within the window", async (_name, step) => {
      const clock = { wall: 1_000, mono: 1_000 };
      const ledger = await answered(clock);
      clock.wall += step;
      clock.mono += 10;
      expect(ledger.read("a.ts", X, X, "art-1").confirms).toBe(false);
      expect(ledger.read("a.ts", X, R, "art-1").contested?.record).toMatchObject({ answeredAt: 1_000, confirmed: false });
    });

    it("a record a previous process left has no answer time here: the first read holding it confirms it", () => {
      const { ledger } = ledgerOf(landedState(), () => 0);
      expect(ledger.read("a.ts", X, X, "art-1").confirms).toBe(true);
    });

    it("a status seen idle after the answer (or a prompt) makes the record visible to later versions; one sent before it does not", async () => {
      const clock = { wall: 1_000, mono: 1_000 };
      const ledger = await answered(clock);
      expect(ledger.seenIdle("art-1", 999)).toBe(false);
      expect(ledger.seenIdle("art-2", 1_001)).toBe(false);
      expect(ledger.askedAfter({ "a.ts": B })).toBe(false);
      expect(ledger.seenIdle("art-1", 1_001)).toBe(true);
      expect(ledger.data.landed?.["a.ts"]?.visible).toBe(true);
    });

    /** X sent without an answer, then R sent over the same base and answered. */
    async function replacedUnanswered(): Promise<BaseLedger> {
      const { ledger } = ledgerOf(state());
      readPath(ledger, "a.ts", X, B, "art-1");
      await ledger.intendPush([{ path: "a.ts", hash: X, previous: B }]);
      ledger.commit([], done(ledger, false, "art-1"));
      readPath(ledger, "a.ts", R, B, "art-1");
      await ledger.intendPush([{ path: "a.ts", hash: R, previous: B }]);
      ledger.commit([{ path: "a.ts", hash: R }], done(ledger, true, "art-1"));
      return ledger;
    }

    it("a text sent without an answer, then replaced by a newer PATCH, is ours when it lands late", async () => {
      const ledger = await replacedUnanswered();
      expect(ledger.data.unanswered).toEqual({ "a.ts": [X] });
      const late = ledger.read("a.ts", R, X, "art-1");
      expect(late.base).toBe(R);
      expect(late.contested).toMatchObject({ ownLate: true, remoteHash: X });
    });

    it("a checkout made after it: the text in the version chosen is the user's choice; texts not listed stay ours", async () => {
      const ledger = await replacedUnanswered();
      ledger.chosenOver({ "a.ts": [B] });
      expect(ledger.data.unanswered).toEqual({ "a.ts": [X] });
      ledger.chosenOver({ "a.ts": [X] });
      expect(ledger.data.unanswered).toBeUndefined();
      expect(ledger.read("a.ts", R, X, "art-2").contested?.ownLate).toBe(false);
    });
  });

  it("an unanswered PATCH keeps its journal; a landed push lives while the base is what it sent, on any later version", () => {
    const s = state({ landed: { "a.ts": { hash: B, previous: null, artifactId: "art-1" } }, pendingPush: { "b.ts": { hash: X, previous: null } } });
    const { ledger } = ledgerOf(s);
    expect(ledger.commit([], done(ledger, false, "art-1"))).toBe(false);
    expect(ledger.data.pendingPush).toEqual({ "b.ts": { hash: X, previous: null } });
    expect(ledger.landedOn("a.ts", "art-1")).toBeDefined();
    // A new version the cycle did not judge that path on (skipped): the record stays.
    expect(ledger.commit([], done(ledger, false, "art-2"))).toBe(false);
    expect(ledger.landedElsewhere("a.ts", "art-2")).toBeDefined();
    // The new version holds the text as sent: it carried the edit, the record goes.
    readPath(ledger, "a.ts", B, B, "art-2");
    expect(ledger.commit([], done(ledger, false, "art-2"))).toBe(true);
    expect(ledger.data.landed).toBeUndefined();
  });

  it("a landed push whose base moved (pulled over, or pushed again) is dropped", () => {
    const s = state({ landed: { "a.ts": { hash: B, previous: null, artifactId: "art-1" } } });
    const { ledger } = ledgerOf(s);
    expect(ledger.commit([{ path: "a.ts", hash: R }], done(ledger, true, "art-1"))).toBe(true);
    expect(ledger.data.landed).toBeUndefined();
  });

  it("an adoption from an abandoned cycle is not recorded by a later one", () => {
    const s = state({ pending: { "a.ts": X } });
    const { ledger } = ledgerOf(s);
    readPath(ledger, "a.ts", X, undefined);
    cycleReading = emptyReading();
    ledger.commit([], done(ledger, true, "art-1"));
    expect(ledger.data.files["a.ts"]).toEqual({ hash: B });
  });
});
