import { describe, expect, it } from "vitest";
import { hasCode } from "../core/errors.js";
import { BaseLedger, type LedgerData } from "./base-ledger.js";
import { ensureValidLedger, ledgerViolation } from "./ledger-validation.js";

const B = "b".repeat(64);
const X = "c".repeat(64);

const valid = (): LedgerData => ({
  files: { "a.ts": { hash: X }, "src/b.ts": { hash: B } },
  pending: { "src/b.ts": B },
  pendingPush: { "c.ts": { hash: X, previous: null } },
  landed: { "a.ts": { hash: X, previous: B, artifactId: "art-1", at: 5, settled: true } },
});

describe("ledgerViolation", () => {
  it("finds nothing wrong with a well-formed ledger, nor with an empty one", () => {
    expect(ledgerViolation(valid())).toBeUndefined();
    expect(ledgerViolation({ files: {} })).toBeUndefined();
  });

  it.each<[string, (d: LedgerData) => void, string]>([
    ["a base under an absolute path", (d) => (d.files["/etc/passwd"] = { hash: B }), 'files["/etc/passwd"]: not a relative path inside the folder (absolute)'],
    [
      "a base climbing out of the folder",
      (d) => (d.files["a/../../x"] = { hash: B }),
      'files["a/../../x"]: not a relative path inside the folder (an empty, . or .. segment)',
    ],
    ["an empty path", (d) => (d.files[""] = { hash: B }), 'files[""]: not a relative path inside the folder (empty)'],
    ["a doubled slash", (d) => (d.pending = { "a//b.ts": B }), 'pending["a//b.ts"]: not a relative path inside the folder (an empty, . or .. segment)'],
    ["a base that is no hash", (d) => (d.files["a.ts"] = { hash: "nope" }), 'files["a.ts"].hash: not a sha256 hash'],
    ["a pulled journal that is no hash", (d) => (d.pending = { "p.ts": "x" }), 'pending["p.ts"]: not a sha256 hash'],
    [
      "a push journal replacing no hash",
      (d) => (d.pendingPush = { "c.ts": { hash: X, previous: "x" } }),
      'pendingPush["c.ts"].previous: neither null nor a sha256 hash',
    ],
    ["a landed push with no artifact", (d) => (d.landed!["a.ts"]!.artifactId = ""), 'landed["a.ts"].artifactId: not an artifact id'],
    ["a landed push answered at no time", (d) => (d.landed!["a.ts"]!.at = Number.NaN), 'landed["a.ts"].at: not a time'],
    [
      "a landed push whose base moved",
      (d) => (d.files["a.ts"] = { hash: B }),
      'landed["a.ts"].hash: not the base of the path (a landed push lives only while the base is what it sent)',
    ],
    [
      "a landed push of a path with no base",
      (d) => delete d.files["a.ts"],
      'landed["a.ts"].hash: not the base of the path (a landed push lives only while the base is what it sent)',
    ],
  ])("names the field: %s", (_name, spoil, want) => {
    const d = valid();
    spoil(d);
    expect(ledgerViolation(d)).toBe(want);
  });

  it("takes dot files and names that only start with dots as the relative paths they are", () => {
    expect(ledgerViolation({ files: { ".env.example": { hash: B }, "a/..b/.c": { hash: B }, "...": { hash: B } } })).toBeUndefined();
  });

  it("skips the bases an earlier check passed (filesKnownGood), never the journals", () => {
    const d = valid();
    d.files["../x"] = { hash: B };
    expect(ledgerViolation(d, { filesKnownGood: true })).toBeUndefined();
    d.pending = { "../y": B };
    expect(ledgerViolation(d, { filesKnownGood: true })).toBe('pending["../y"]: not a relative path inside the folder (an empty, . or .. segment)');
  });

  it("ensureValidLedger throws an INTERNAL error naming it", () => {
    const d = valid();
    d.files["a.ts"] = { hash: "nope" };
    expect(() => ensureValidLedger(d)).toThrow('the base ledger is invalid, so state.json was not written: files["a.ts"].hash: not a sha256 hash');
    let thrown: unknown;
    try {
      ensureValidLedger(d);
    } catch (err) {
      thrown = err;
    }
    expect(hasCode(thrown, "INTERNAL")).toBe(true);
  });
});

describe("BaseLedger before a save", () => {
  it("refuses to hand a bad journal to the store: nothing is written", async () => {
    let written: LedgerData | undefined;
    const ledger: BaseLedger = new BaseLedger({ files: {} }, () => {
      written = structuredClone(ledger.toJSON());
      return Promise.resolve();
    });
    await expect(ledger.intendPulls(new Map([["../outside.ts", B]]))).rejects.toSatisfy((err: unknown) => hasCode(err, "INTERNAL"));
    expect(written).toBeUndefined();
    // The bad record is still held: every later save refuses too, so state.json keeps the last good ledger.
    await expect(ledger.intendPulls(new Map([["inside.ts", B]]))).rejects.toThrow(/pending\["\.\.\/outside\.ts"\]/);
    expect(written).toBeUndefined();
  });

  it("hands a good journal over", async () => {
    let written: LedgerData | undefined;
    const ledger: BaseLedger = new BaseLedger({ files: {} }, () => {
      written = structuredClone(ledger.toJSON());
      return Promise.resolve();
    });
    await ledger.intendPulls(new Map([["src/inside.ts", B]]));
    expect(written?.pending).toEqual({ "src/inside.ts": B });
  });

  it("drops at load a landed record an older state.json kept after its base moved (inert: never judged)", () => {
    const ledger = new BaseLedger({ files: { "a.ts": { hash: B } }, landed: { "a.ts": { hash: X, previous: null, artifactId: "art-1" } } }, () =>
      Promise.resolve(),
    );
    expect(ledger.data.landed).toBeUndefined();
    expect(() => ledger.toJSON()).not.toThrow();
  });
});
