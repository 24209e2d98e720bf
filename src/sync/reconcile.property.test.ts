import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ConflictPolicy, FileAction, FileTriple, LocalFile, SyncPlan } from "./model.js";
import { reconcile } from "./reconcile.js";

const POLICIES: ConflictPolicy[] = ["merge", "keep-local", "keep-remote"];
// A tiny alphabet so that base, local and remote often collide.
const hashArb = fc.constantFrom("h1", "h2", "h3");
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
const localArb: fc.Arbitrary<LocalFile> = fc.record({
  hash: hashArb,
  binary: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  hasMarkers: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
});

const tripleArb = (path: string, withBase: boolean): fc.Arbitrary<FileTriple> =>
  fc.record({
    path: fc.constant(path),
    base: withBase ? maybe(hashArb) : fc.constant(undefined),
    local: maybe(localArb),
    remote: maybe(hashArb.map((hash) => ({ hash }))),
  });

const designArb = (withBase = true) =>
  fc
    .uniqueArray(fc.constantFrom("a", "b", "c", "d/e", "d/f", "g", "h"), { maxLength: 7 })
    .chain((paths) => fc.tuple(...paths.map((p) => tripleArb(p, withBase))));

/** How a merge-policy conflict turns out in the model (the real merge is tested in merge.test.ts). */
const mergeOutcomesArb = fc.array(fc.boolean(), { minLength: 8, maxLength: 8 });

/**
 * Applies a plan to an in-memory model of both sides, the way the executor would when every
 * write succeeds: the base always ends as what the remote holds after the action.
 */
function applyPlan(files: FileTriple[], plan: SyncPlan, cleanMerges: boolean[]): FileTriple[] {
  const byPath = new Map(files.map((f) => [f.path, { ...f }]));
  const plain = (hash: string): LocalFile => ({ hash, binary: false, hasMarkers: false });
  plan.actions.forEach((action, index) => {
    const f = byPath.get(action.path);
    if (f === undefined) throw new Error(`action on unknown path ${action.path}`);
    switch (action.kind) {
      case "push":
        f.remote = { hash: action.expectLocal };
        f.base = action.expectLocal;
        return;
      case "pull":
        f.local = plain(action.remoteHash);
        f.base = action.remoteHash;
        return;
      case "remove-local":
        f.local = undefined;
        f.base = undefined;
        return;
      case "record-base":
        f.base = action.hash;
        return;
      case "conflict":
        applyConflict(f, action, cleanMerges[index % cleanMerges.length] ?? true);
        return;
      case "report":
        return;
    }
  });
  return [...byPath.values()];
}

function applyConflict(f: FileTriple, action: Extract<FileAction, { kind: "conflict" }>, clean: boolean): void {
  const plain = (hash: string): LocalFile => ({ hash, binary: false, hasMarkers: false });
  // Every outcome records the remote as the new base (see resolveConflict).
  f.base = action.remoteHash;
  if (action.localBlocked !== undefined) {
    if (action.localBlocked === "binary" && action.policy === "keep-remote") f.local = plain(action.remoteHash);
    return;
  }
  if (action.policy === "keep-local") {
    f.remote = { hash: action.localHash };
    f.base = action.localHash;
  } else if (action.policy === "keep-remote") {
    f.local = plain(action.remoteHash);
  } else if (clean) {
    const merged = `merged(${action.localHash},${action.remoteHash})`;
    f.local = plain(merged);
    f.remote = { hash: merged };
    f.base = merged;
  } else {
    f.local = { hash: `markers(${action.localHash},${action.remoteHash})`, binary: false, hasMarkers: true };
  }
}

const run = (files: FileTriple[], policy: ConflictPolicy): SyncPlan => reconcile({ files, policy, force: true, folderExists: true, fullRemote: true });

describe("convergence", () => {
  it.each(POLICIES)("after applying a plan, reconcile finds only reports (%s)", (policy) => {
    fc.assert(
      fc.property(designArb(), mergeOutcomesArb, (files, merges) => {
        const after = applyPlan(files, run(files, policy), merges);
        const again = run(after, policy);
        expect(again.actions.filter((a) => a.kind !== "report")).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});

/** Checks one action against the triple it was decided from. */
function checkSafety(f: FileTriple, actions: FileAction[]): void {
  const local = f.local;
  for (const action of actions) {
    if (action.kind === "remove-local") {
      // Only an unchanged, known file may be removed.
      expect(f.base).toBeDefined();
      expect(local?.hash).toBe(f.base);
      expect(action.expectLocal).toBe(f.base);
    }
    if (action.kind === "push") {
      expect(local).toBeDefined();
      expect(local?.binary).toBe(false);
      expect(local?.hasMarkers).toBe(false);
      expect(action.expectLocal).toBe(local?.hash);
    }
    if (action.kind === "pull") {
      // A pull replaces only an absent or unchanged local file; anything else is a conflict.
      if (local === undefined) expect(action.expectLocal).toBeUndefined();
      else expect([action.expectLocal, f.base]).toEqual([local.hash, local.hash]);
    }
  }
  const kinds = actions.map((a) => a.kind);
  expect(kinds.filter((k) => k !== "report").length).toBeLessThanOrEqual(1);
  // Modify beats delete, on both sides.
  if (f.base !== undefined && local === undefined && f.remote !== undefined && f.remote.hash !== f.base) {
    expect(kinds).toEqual(["pull"]);
  }
  if (f.base !== undefined && f.remote === undefined && local !== undefined && local.hash !== f.base) {
    expect(kinds).not.toContain("remove-local");
    if (!local.binary && !local.hasMarkers) expect(kinds).toEqual(["push"]);
  }
  // Both sides moved to different contents: never decided silently.
  if (local !== undefined && f.remote !== undefined && local.hash !== f.remote.hash && local.hash !== f.base && f.remote.hash !== f.base) {
    expect(kinds).toContain("conflict");
  }
}

describe("safety", () => {
  it.each(POLICIES)("no action ever loses an edit or pushes an unpushable file (%s)", (policy) => {
    fc.assert(
      fc.property(designArb(), (files) => {
        const plan = run(files, policy);
        for (const f of files)
          checkSafety(
            f,
            plan.actions.filter((a) => a.path === f.path),
          );
        expect(new Set(plan.actions.map((a) => a.path)).size).toBeLessThanOrEqual(files.length);
      }),
      { numRuns: 2000 },
    );
  });

  it("a lost state (no base anywhere) never removes a local file or overwrites one", () => {
    fc.assert(
      fc.property(designArb(false), fc.constantFrom(...POLICIES), fc.boolean(), (files, policy, force) => {
        const plan = reconcile({ files, policy, force, folderExists: true, fullRemote: true });
        const byPath = new Map(files.map((f) => [f.path, f]));
        for (const action of plan.actions) {
          expect(action.kind).not.toBe("remove-local");
          if (action.kind === "pull") expect(byPath.get(action.path)?.local).toBeUndefined();
          if (action.kind === "record-base") expect(action.hash).toBeDefined();
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("without force, a plan that removes more than half of the local files is halted", () => {
    fc.assert(
      fc.property(designArb(), fc.constantFrom(...POLICIES), (files, policy) => {
        const plan = reconcile({ files, policy, force: false, folderExists: true, fullRemote: true });
        const removing = plan.actions.filter((a) => a.kind === "remove-local").length;
        const localFiles = files.filter((f) => f.local !== undefined).length;
        if (removing * 2 > localFiles) expect(plan.halt).toBeDefined();
      }),
      { numRuns: 1000 },
    );
  });
});
