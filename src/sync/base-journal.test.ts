import { describe, expect, it } from "vitest";
import { journalHashes, journalPush, recordPushed, resolveBase, settlePushed } from "./base-journal.js";
import type { PersistedState } from "./design-store.js";

const B = "b".repeat(64);
const X = "c".repeat(64);
const R = "d".repeat(64);

function state(extra: Partial<PersistedState> = {}): PersistedState {
  return { files: { "a.ts": { hash: B } }, ...extra };
}

describe("resolveBase", () => {
  it.each([
    ["no journal: the recorded base", state(), B, R, "A1", { base: B, adopted: false }],
    ["a pulled write that died before the save: adopted", state({ pending: { "a.ts": X } }), X, R, "A1", { base: X, adopted: true }],
    ["a pending pull the file does not hold: ignored", state({ pending: { "a.ts": X } }), R, R, "A1", { base: B, adopted: false }],
    ["a PATCH that did not land (remote still as before): recorded base", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), X, B, "A1", { base: B, adopted: false }],
    ["a PATCH that landed and was edited since: the pushed content", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), X, R, "A1", { base: X, adopted: true }],
    ["a PATCH that landed, then the file was deleted locally: the pushed content", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), undefined, X, "A1", { base: X, adopted: true }],
    ["a PATCH that landed, then edited locally again: the pushed content", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), R, X, "A1", { base: X, adopted: true }],
    ["a new file whose PATCH did not land: no base", { files: {}, pendingPush: { "a.ts": { hash: X, previous: null } } }, X, undefined, "A1", { base: undefined, adopted: false }],
    ["pushed to A1, now A2 active, file unchanged since: pre-push content", state({ files: { "a.ts": { hash: X } }, pushedTo: { artifactId: "A1", previous: { "a.ts": B } } }), X, R, "A2", { base: B, adopted: true }],
    ["pushed to A1, still A1: the recorded base", state({ files: { "a.ts": { hash: X } }, pushedTo: { artifactId: "A1", previous: { "a.ts": B } } }), X, X, "A1", { base: X, adopted: false }],
    ["pushed to A1, edited again since: the recorded base", state({ files: { "a.ts": { hash: X } }, pushedTo: { artifactId: "A1", previous: { "a.ts": B } } }), R, B, "A2", { base: X, adopted: false }],
    ["pushed a new file to A1, A2 lacks it: the recorded base (removed with a backup)", state({ files: { "a.ts": { hash: X } }, pushedTo: { artifactId: "A1", previous: { "a.ts": null } } }), X, undefined, "A2", { base: X, adopted: false }],
  ] as const)("%s", (_name, s, local, remote, artifact, want) => {
    expect(resolveBase(s as PersistedState, "a.ts", local, remote, artifact)).toEqual(want);
  });
});

describe("journals", () => {
  it("recordPushed keeps the first pre-push hash per path and resets on another artifact", () => {
    const s = state();
    recordPushed(s, "A1", ["a.ts"], () => B);
    recordPushed(s, "A1", ["a.ts", "n.ts"], (p) => (p === "n.ts" ? null : X));
    expect(s.pushedTo).toEqual({ artifactId: "A1", previous: { "a.ts": B, "n.ts": null } });
    recordPushed(s, "A2", [], () => R);
    expect(s.pushedTo).toBeUndefined();
  });

  it("settlePushed forgets only the matching artifact; journalHashes keeps what the journals need", () => {
    const s = state({ pending: { "p.ts": R } });
    recordPushed(s, "A1", ["a.ts"], () => B);
    journalPush(s, [{ path: "a.ts", hash: X, previous: B }]);
    expect(journalHashes(s).sort()).toEqual([B, X, R].sort());
    settlePushed(s, "A2");
    expect(s.pushedTo).toBeDefined();
    settlePushed(s, "A1");
    expect(s.pushedTo).toBeUndefined();
  });
});
