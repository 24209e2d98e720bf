import { describe, expect, it } from "vitest";
import { journalHashes, journalPush, resolveBase } from "./base-journal.js";
import type { PersistedState } from "./design-store.js";

const B = "b".repeat(64);
const X = "c".repeat(64);
const R = "d".repeat(64);

function state(extra: Partial<PersistedState> = {}): PersistedState {
  return { files: { "a.ts": { hash: B } }, ...extra };
}

describe("resolveBase", () => {
  it.each([
    ["no journal: the recorded base", state(), B, R, { base: B, adopted: false }],
    ["a pulled write that died before the save: adopted", state({ pending: { "a.ts": X } }), X, R, { base: X, adopted: true }],
    ["a pending pull the file does not hold: ignored", state({ pending: { "a.ts": X } }), R, R, { base: B, adopted: false }],
    ["a PATCH that did not land (remote still as before): recorded base", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), X, B, { base: B, adopted: false }],
    ["the remote moved elsewhere (a failed PATCH, then a remote edit): no proof, the recorded base", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), X, R, { base: B, adopted: false }],
    ["a PATCH that landed, then the file was deleted locally: the pushed content", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), undefined, X, { base: X, adopted: true }],
    ["a PATCH that landed, then edited locally again: the pushed content", state({ pendingPush: { "a.ts": { hash: X, previous: B } } }), R, X, { base: X, adopted: true }],
    ["a new file whose PATCH did not land: no base", { files: {}, pendingPush: { "a.ts": { hash: X, previous: null } } }, X, undefined, { base: undefined, adopted: false }],
  ] as const)("%s", (_name, s, local, remote, want) => {
    expect(resolveBase(s as PersistedState, "a.ts", local, remote)).toEqual(want);
  });
});

describe("journals", () => {
  it("journalPush records each path; journalHashes keeps what the journals need", () => {
    const s = state({ pending: { "p.ts": R } });
    journalPush(s, [{ path: "a.ts", hash: X, previous: B }]);
    expect(s.pendingPush).toEqual({ "a.ts": { hash: X, previous: B } });
    expect(journalHashes(s).sort()).toEqual([X, R].sort());
  });
});
