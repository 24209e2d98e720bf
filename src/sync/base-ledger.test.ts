import { describe, expect, it } from "vitest";
import { addReading, BaseLedger, emptyReading, RACE_WINDOW_MS, resolveBase } from "./base-ledger.js";
import type { PersistedState } from "./ports.js";

const B = "b".repeat(64);
const X = "c".repeat(64);
const R = "d".repeat(64);

function state(extra: Partial<PersistedState> = {}): PersistedState {
  return { files: { "a.ts": { hash: B } }, ...extra };
}

function ledgerOf(s: PersistedState, now: () => number = () => 1_000): { ledger: BaseLedger; saves: () => number } {
  let saves = 0;
  const ledger = new BaseLedger(
    s,
    () => {
      saves += 1;
      return Promise.resolve();
    },
    now,
  );
  return { ledger, saves: () => saves };
}

/** One cycle's read of `path`, handed back to the ledger as a cycle does (buildTriples, then begin). */
function readPath(ledger: BaseLedger, path: string, local: string | undefined, remote: string | undefined, artifactId?: string): string | undefined {
  const reading = emptyReading();
  const r = ledger.read(path, local, remote, artifactId);
  addReading(reading, path, r);
  ledger.begin(reading);
  return r.base;
}

describe("resolveBase", () => {
  it.each([
    ["no journal: the recorded base", state(), B, R, { base: B, adopted: false }],
    ["a pulled write that died before the save: adopted", state({ pending: { "a.ts": X } }), X, R, { base: X, adopted: true }],
    ["a pending pull the file does not hold: ignored", state({ pending: { "a.ts": X } }), R, R, { base: B, adopted: false }],
    [
      "a PATCH that did not land (remote still as before): recorded base",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      X,
      B,
      { base: B, adopted: false },
    ],
    [
      "the remote moved elsewhere (a failed PATCH, then a remote edit): no proof, the recorded base",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      X,
      R,
      { base: B, adopted: false },
    ],
    [
      "a PATCH that landed, then the file was deleted locally: the pushed content",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      undefined,
      X,
      { base: X, adopted: true },
    ],
    [
      "a PATCH that landed, then edited locally again: the pushed content",
      state({ pendingPush: { "a.ts": { hash: X, previous: B } } }),
      R,
      X,
      { base: X, adopted: true },
    ],
    [
      "a new file whose PATCH did not land: no base",
      { files: {}, pendingPush: { "a.ts": { hash: X, previous: null } } },
      X,
      undefined,
      { base: undefined, adopted: false },
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
    expect(ledger.data.pendingPush).toEqual({ "a.ts": { hash: X, previous: B } });
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
    expect(ledger.data.pendingPush?.["a.ts"]).toEqual({ hash: X, previous: B });
    ledger.commit(
      [
        { path: "a.ts", hash: X },
        { path: "b.ts", hash: R },
      ],
      { pushAnswered: true, artifactId: "art-1" },
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
      { pushAnswered: true, artifactId: "art-1" },
    );
    expect(changed).toBe(true);
    expect(ledger.data.files).toEqual({ "a.ts": { hash: X }, "p.ts": { hash: R } });
    expect(ledger.data.pending).toBeUndefined();
    expect(ledger.data.pendingPush).toBeUndefined();
    expect(ledger.landedOn("a.ts", "art-1")).toEqual({ hash: X, previous: B, artifactId: "art-1", at: 1_000 });
    expect(ledger.landedOn("a.ts", "art-2")).toBeUndefined();
  });

  describe("an answered PATCH another writer may still overwrite (RACE_WINDOW_MS)", () => {
    const landedState = (): PersistedState =>
      state({ files: { "a.ts": { hash: X } }, landed: { "a.ts": { hash: X, previous: B, artifactId: "art-1", at: 1_000 } } });

    it("a remote text other than the one sent, on the same artifact, is a suspect; its base stays until races.ts judges", () => {
      const { ledger } = ledgerOf(landedState(), () => 2_000);
      expect(readPath(ledger, "a.ts", X, R, "art-1")).toBe(X);
      expect([...ledger.suspects().keys()]).toEqual(["a.ts"]);
    });

    it("on another artifact it is no race (a new version: displaced.ts judges)", () => {
      const { ledger } = ledgerOf(landedState(), () => 2_000);
      readPath(ledger, "a.ts", X, R, "art-2");
      expect(ledger.suspects().size).toBe(0);
    });

    it("seen as sent within the window: still unsettled; after it: settled by the commit, and no longer a suspect", () => {
      let now = 1_000 + RACE_WINDOW_MS - 1;
      const s = landedState();
      const { ledger } = ledgerOf(s, () => now);
      readPath(ledger, "a.ts", X, X, "art-1");
      ledger.commit([], { pushAnswered: true, artifactId: "art-1" });
      expect(ledger.data.landed?.["a.ts"]?.settled).toBeUndefined();
      now = 1_000 + RACE_WINDOW_MS;
      readPath(ledger, "a.ts", X, X, "art-1");
      expect(ledger.commit([], { pushAnswered: true, artifactId: "art-1" })).toBe(true);
      expect(ledger.data.landed?.["a.ts"]?.settled).toBe(true);
      readPath(ledger, "a.ts", X, R, "art-1");
      expect(ledger.suspects().size).toBe(0);
    });
  });

  it("an unanswered PATCH keeps its journal; a landed push lives while the base is what it sent, on any later version", () => {
    const s = state({ landed: { "a.ts": { hash: B, previous: null, artifactId: "art-1" } }, pendingPush: { "b.ts": { hash: X, previous: null } } });
    const { ledger } = ledgerOf(s);
    expect(ledger.commit([], { pushAnswered: false, artifactId: "art-1" })).toBe(false);
    expect(ledger.data.pendingPush).toEqual({ "b.ts": { hash: X, previous: null } });
    expect(ledger.landedOn("a.ts", "art-1")).toBeDefined();
    // A new version the cycle did not judge that path on (skipped): the record stays.
    expect(ledger.commit([], { pushAnswered: false, artifactId: "art-2" })).toBe(false);
    expect(ledger.landedElsewhere("a.ts", "art-2")).toBeDefined();
    // The new version holds the text as sent: it carried the edit, the record goes.
    readPath(ledger, "a.ts", B, B, "art-2");
    expect(ledger.commit([], { pushAnswered: false, artifactId: "art-2" })).toBe(true);
    expect(ledger.data.landed).toBeUndefined();
  });

  it("a landed push whose base moved (pulled over, or pushed again) is dropped", () => {
    const s = state({ landed: { "a.ts": { hash: B, previous: null, artifactId: "art-1" } } });
    const { ledger } = ledgerOf(s);
    expect(ledger.commit([{ path: "a.ts", hash: R }], { pushAnswered: true, artifactId: "art-1" })).toBe(true);
    expect(ledger.data.landed).toBeUndefined();
  });

  it("an adoption from an abandoned cycle is not recorded by a later one", () => {
    const s = state({ pending: { "a.ts": X } });
    const { ledger } = ledgerOf(s);
    readPath(ledger, "a.ts", X, undefined);
    ledger.begin();
    ledger.commit([], { pushAnswered: true, artifactId: "art-1" });
    expect(ledger.data.files["a.ts"]).toEqual({ hash: B });
  });
});
