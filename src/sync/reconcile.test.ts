import { describe, expect, it } from "vitest";
import type { ConflictPolicy, FileAction, FileTriple, LocalFile, ReconcileInput, SyncPlan } from "./model.js";
import { reconcile, reconcileFile } from "./reconcile.js";

/** Number of actions per kind. */
type PlanSummary = Record<FileAction["kind"], number>;

/** Counts the actions of a plan per kind (for status lines and --dry-run). */
function summarizePlan(plan: SyncPlan): PlanSummary {
  const summary: PlanSummary = { push: 0, pull: 0, "remove-local": 0, "record-base": 0, conflict: 0, report: 0 };
  for (const action of plan.actions) summary[action.kind] += 1;
  return summary;
}

/** True when the plan changes nothing: no breaker tripped and every action is a report. */
function isQuiet(plan: SyncPlan): boolean {
  return plan.halt === undefined && plan.actions.every((a) => a.kind === "report");
}

/** The paths a plan pushes (the engine reads and re-checks these before the PATCH). */
function pushedPaths(plan: SyncPlan): string[] {
  return plan.actions.filter((a) => a.kind === "push").map((a) => a.path);
}

const POLICIES: ConflictPolicy[] = ["merge", "keep-local", "keep-remote"];
const P = "f.tsx";
// Hashes: B is the base, X and Y two other contents.
const B = "hash-b";
const X = "hash-x";
const Y = "hash-y";

type LocalSpec = undefined | string | { hash: string; binary?: boolean; markers?: boolean };

function localOf(spec: LocalSpec): LocalFile | undefined {
  if (spec === undefined) return undefined;
  if (typeof spec === "string") return { hash: spec, binary: false, hasMarkers: false };
  return { hash: spec.hash, binary: spec.binary ?? false, hasMarkers: spec.markers ?? false };
}

function triple(base: string | undefined, local: LocalSpec, remote: string | undefined, path = P): FileTriple {
  return { path, base, local: localOf(local), remote: remote === undefined ? undefined : { hash: remote } };
}

const bin = (hash: string) => ({ hash, binary: true });
const marked = (hash: string) => ({ hash, markers: true });

// Expected actions are built per policy: only conflicts carry it.
type Expect = (policy: ConflictPolicy) => FileAction[];
const none: Expect = () => [];
const push =
  (expectLocal: string, reason: "local-changed" | "local-new" | "modify-beats-delete"): Expect =>
  () => [{ kind: "push", path: P, expectLocal, reason }];
const pull =
  (remoteHash: string, expectLocal: string | undefined, reason: "remote-changed" | "remote-new" | "modify-beats-delete"): Expect =>
  () => [{ kind: "pull", path: P, remoteHash, expectLocal, reason }];
const removeLocal =
  (expectLocal: string): Expect =>
  () => [{ kind: "remove-local", path: P, expectLocal }];
const recordBase =
  (hash: string | undefined): Expect =>
  () => [{ kind: "record-base", path: P, hash }];
const report =
  (reason: "deleted-locally" | "binary-not-pushed" | "unresolved-markers"): Expect =>
  () => [{ kind: "report", path: P, reason }];
const conflict =
  (base: string | undefined, localHash: string, remoteHash: string): Expect =>
  (policy) => [{ kind: "conflict", path: P, policy, base, localHash, remoteHash }];
const blockedConflict =
  (base: string | undefined, blocked: "binary" | "markers", localHash: string, remoteHash: string): Expect =>
  (policy) => [
    { kind: "report", path: P, reason: blocked === "binary" ? "binary-not-pushed" : "unresolved-markers" },
    { kind: "conflict", path: P, policy, base, localHash, remoteHash, localBlocked: blocked },
  ];

// [description, base, local, remote, expected]: the decision table of README, "How sync works".
const TABLE: [string, string | undefined, LocalSpec, string | undefined, Expect][] = [
  // No base: a new file, or the state was lost.
  ["no base: both absent", undefined, undefined, undefined, none],
  ["no base: local only -> push local-new", undefined, X, undefined, push(X, "local-new")],
  ["no base: binary local only -> reported", undefined, bin(X), undefined, report("binary-not-pushed")],
  ["no base: marked local only -> reported", undefined, marked(X), undefined, report("unresolved-markers")],
  ["no base: remote only -> pull remote-new", undefined, undefined, X, pull(X, undefined, "remote-new")],
  ["no base: same content -> record base", undefined, X, X, recordBase(X)],
  ["no base: same content, binary -> record base", undefined, bin(X), X, recordBase(X)],
  ["no base: different -> conflict without ancestor", undefined, X, Y, conflict(undefined, X, Y)],
  ["no base: binary local differs -> report + conflict", undefined, bin(X), Y, blockedConflict(undefined, "binary", X, Y)],
  ["no base: marked local differs -> report + conflict", undefined, marked(X), Y, blockedConflict(undefined, "markers", X, Y)],
  // Base present, both sides present.
  ["unchanged both sides", B, B, B, none],
  ["unchanged both sides, marked base", B, marked(B), B, none],
  ["local changed -> push", B, X, B, push(X, "local-changed")],
  ["local changed, binary -> reported", B, bin(X), B, report("binary-not-pushed")],
  ["local changed, markers -> reported", B, marked(X), B, report("unresolved-markers")],
  ["local changed, binary and markers -> binary wins", B, { hash: X, binary: true, markers: true }, B, report("binary-not-pushed")],
  ["remote changed -> pull", B, B, Y, pull(Y, B, "remote-changed")],
  ["remote changed, local binary but unchanged -> pull", B, bin(B), Y, pull(Y, B, "remote-changed")],
  ["both changed alike -> record base", B, X, X, recordBase(X)],
  ["both changed differently -> conflict", B, X, Y, conflict(B, X, Y)],
  ["both changed, binary local -> report + conflict", B, bin(X), Y, blockedConflict(B, "binary", X, Y)],
  ["both changed, marked local -> report + conflict", B, marked(X), Y, blockedConflict(B, "markers", X, Y)],
  // Base present, local deleted.
  ["deleted locally, remote unchanged -> reported", B, undefined, B, report("deleted-locally")],
  ["deleted locally, remote changed -> pull (modify beats delete)", B, undefined, Y, pull(Y, undefined, "modify-beats-delete")],
  ["deleted both sides -> forget base", B, undefined, undefined, recordBase(undefined)],
  // Base present, remote dropped the file.
  ["remote dropped, local unchanged -> remove local", B, B, undefined, removeLocal(B)],
  ["remote dropped, binary local unchanged -> remove local", B, bin(B), undefined, removeLocal(B)],
  ["remote dropped, local changed -> push (modify beats delete)", B, X, undefined, push(X, "modify-beats-delete")],
  ["remote dropped, binary local changed -> reported", B, bin(X), undefined, report("binary-not-pushed")],
  ["remote dropped, marked local changed -> reported", B, marked(X), undefined, report("unresolved-markers")],
];

describe.each(POLICIES)("reconcileFile, policy %s", (policy) => {
  it.each(TABLE)("%s", (_name, base, local, remote, expected) => {
    expect(reconcileFile(triple(base, local, remote), policy)).toEqual(expected(policy));
  });

  it.each(TABLE)("%s (same through reconcile, no breaker)", (_name, base, local, remote, expected) => {
    // An unrelated synced file keeps every breaker quiet so the row is seen on its own.
    const other = triple("o", "o", "o", "z-other");
    const plan = reconcile({ files: [triple(base, local, remote), other], policy, force: false, folderExists: true, fullRemote: true });
    expect(plan).toEqual({ actions: expected(policy), halt: undefined });
  });
});

describe("mode pull-only (mpsync pull): an input of reconcile, nothing is sent", () => {
  it.each<[string, string | undefined, LocalSpec, string | undefined, FileAction[]]>([
    ["local changed: waiting to be pushed", B, X, B, [{ kind: "report", path: P, reason: "waiting-to-push" }]],
    ["a new local file: waiting to be pushed", undefined, X, undefined, [{ kind: "report", path: P, reason: "waiting-to-push" }]],
    ["remote changed: pulled as in two-way", B, B, Y, [{ kind: "pull", path: P, remoteHash: Y, expectLocal: B, reason: "remote-changed" }]],
    [
      "both changed: the merge is written locally and waits to be pushed",
      B,
      X,
      Y,
      [{ kind: "conflict", path: P, policy: "merge", base: B, localHash: X, remoteHash: Y, waitToPush: true }],
    ],
  ])("%s", (_name, base, local, remote, expected) => {
    const other = triple("o", "o", "o", "z-other");
    expect(
      reconcile({ files: [triple(base, local, remote), other], policy: "merge", mode: "pull-only", force: false, folderExists: true, fullRemote: true }),
    ).toEqual({
      actions: expected,
      halt: undefined,
    });
  });

  it.each(POLICIES)("no row of the decision table sends anything (policy %s)", (policy) => {
    const actions = TABLE.flatMap(([, base, local, remote]) => reconcileFile(triple(base, local, remote), policy, "pull-only"));
    expect(actions.filter((a) => a.kind === "push")).toEqual([]);
    expect(actions.filter((a) => a.kind === "conflict" && a.waitToPush !== true)).toEqual([]);
  });
});

function input(files: FileTriple[], overrides: Partial<ReconcileInput> = {}): ReconcileInput {
  return { files, policy: "merge", force: false, folderExists: true, fullRemote: true, ...overrides };
}

const synced = (n: number, prefix = "s"): FileTriple[] => Array.from({ length: n }, (_, i) => triple(B, B, B, `${prefix}${i}`));

describe.each([false, true])("circuit breakers (force: %s)", (force) => {
  const tripped = <T>(halt: T) => (force ? undefined : halt);

  it("a missing folder halts, the plan still lists what it would do", () => {
    const files = [triple(B, undefined, B, "a"), triple(undefined, undefined, X, "b")];
    const plan = reconcile(input(files, { force, folderExists: false }));
    expect(plan.halt).toEqual(tripped({ kind: "folder-missing" }));
    expect(plan.actions).toEqual([
      { kind: "report", path: "a", reason: "deleted-locally" },
      { kind: "pull", path: "b", remoteHash: X, expectLocal: undefined, reason: "remote-new" },
    ]);
  });

  it("pull --force on an emptied folder restores what the service holds, and does not halt", () => {
    const files = synced(3).map((f) => ({ ...f, local: undefined }));
    const plan = reconcile(input(files, { force: true, restoreDeleted: true }));
    expect(plan.halt).toBeUndefined();
    expect(plan.actions.map((a) => a.kind)).toEqual(["pull", "pull", "pull"]);
    // Without the emptied folder, a deleted file stays "deleted locally" even with --force.
    const one = [...synced(3).slice(0, 2), { ...synced(3)[2]!, local: undefined }];
    expect(reconcile(input(one, { force: true, restoreDeleted: true })).actions.filter((a) => a.kind === "report")).toHaveLength(1);
  });

  it("an emptied folder halts", () => {
    const files = synced(3).map((f) => ({ ...f, local: undefined }));
    const plan = reconcile(input(files, { force }));
    expect(plan.halt).toEqual(tripped({ kind: "folder-emptied", baseFiles: 3 }));
    expect(summarizePlan(plan).report).toBe(3);
  });

  it("a remote artifact with no files halts a full pull", () => {
    const files = [triple(B, B, undefined, "a"), triple(undefined, X, undefined, "b")];
    const plan = reconcile(input(files, { force }));
    expect(plan.halt).toEqual(tripped({ kind: "remote-empty" }));
    expect(plan.actions.map((a) => a.kind)).toEqual(["remove-local", "push"]);
  });

  it("an empty remote with only new local files still halts (the artifact is empty)", () => {
    const plan = reconcile(input([triple(undefined, X, undefined)], { force }));
    expect(plan.halt).toEqual(tripped({ kind: "remote-empty" }));
  });

  it("more than half of the local files removed halts", () => {
    const files = [...synced(3, "gone").map((f) => ({ ...f, remote: undefined })), ...synced(1)];
    const plan = reconcile(input(files, { force }));
    expect(plan.halt).toEqual(tripped({ kind: "mass-delete", removing: 3, localFiles: 4 }));
    expect(summarizePlan(plan)["remove-local"]).toBe(3);
  });

  it("the folder-missing breaker comes before the others", () => {
    const files = synced(2).map((f) => ({ ...f, local: undefined, remote: undefined }));
    const plan = reconcile(input(files, { force, folderExists: false }));
    expect(plan.halt).toEqual(tripped({ kind: "folder-missing" }));
  });
});

describe("breakers that do not trip", () => {
  it("exactly half of the local files removed is allowed", () => {
    const files = [...synced(2, "gone").map((f) => ({ ...f, remote: undefined })), ...synced(2)];
    const plan = reconcile(input(files));
    expect(plan.halt).toBeUndefined();
    expect(pushedPaths(plan)).toEqual([]);
  });

  it("a partial remote read (push time) never claims the artifact is empty", () => {
    const plan = reconcile(input([triple(undefined, X, undefined)], { fullRemote: false }));
    expect(plan).toEqual({ actions: [{ kind: "push", path: P, expectLocal: X, reason: "local-new" }], halt: undefined });
  });

  it("a partial read still treats an absent remote as dropped (mass-delete guards it)", () => {
    const plan = reconcile(input([triple(B, B, undefined)], { fullRemote: false }));
    expect(plan.halt).toEqual({ kind: "mass-delete", removing: 1, localFiles: 1 });
  });

  it("an explicit remote count overrides the triples (refused names still make it non-empty)", () => {
    const files = [triple(undefined, X, undefined)];
    expect(reconcile(input(files, { remoteFileCount: 2 })).halt).toBeUndefined();
    expect(reconcile(input(files, { remoteFileCount: 0 })).halt).toEqual({ kind: "remote-empty" });
  });

  it("a push-time cycle deleting its only path is not an emptied folder", () => {
    const plan = reconcile(input([triple(B, undefined, B)], { fullRemote: false }));
    expect(plan).toEqual({ actions: [{ kind: "report", path: P, reason: "deleted-locally" }], halt: undefined });
  });

  it("a push-time cycle trusts explicit totals", () => {
    const files = [triple(B, undefined, B)];
    expect(reconcile(input(files, { fullRemote: false, localFileCount: 0 })).halt).toEqual({ kind: "folder-emptied", baseFiles: 1 });
    expect(reconcile(input(files, { fullRemote: false, localFileCount: 0, baseFileCount: 9 })).halt).toEqual({ kind: "folder-emptied", baseFiles: 9 });
    expect(reconcile(input([triple(undefined, X, undefined)], { fullRemote: false, remoteFileCount: 0 })).halt).toEqual({ kind: "remote-empty" });
  });

  it("the mass-delete share is taken over the whole folder when its size is given", () => {
    const files = [triple(B, B, undefined)];
    expect(reconcile(input(files, { fullRemote: false, localFileCount: 10 })).halt).toBeUndefined();
    expect(reconcile(input(files, { fullRemote: true, localFileCount: 1, remoteFileCount: 5 })).halt).toEqual({
      kind: "mass-delete",
      removing: 1,
      localFiles: 1,
    });
  });

  it("a brand-new empty design into an empty folder is simply quiet", () => {
    expect(reconcile(input([]))).toEqual({ actions: [], halt: undefined });
  });

  it("a first pull into an empty folder is not an emptied folder (no base)", () => {
    const plan = reconcile(input([triple(undefined, undefined, X, "a"), triple(undefined, undefined, Y, "b")]));
    expect(plan.halt).toBeUndefined();
    expect(summarizePlan(plan).pull).toBe(2);
  });
});

describe("plan helpers", () => {
  const files = [
    triple(B, X, B, "c-push"),
    triple(B, B, Y, "b-pull"),
    triple(B, X, Y, "a-conflict"),
    triple(B, undefined, B, "d-deleted"),
    triple(B, X, X, "e-record"),
    triple(B, B, undefined, "f-remove"),
    ...synced(3),
  ];
  const plan = reconcile(input(files));

  it("orders actions by path", () => {
    expect(plan.actions.map((a) => a.path)).toEqual(["a-conflict", "b-pull", "c-push", "d-deleted", "e-record", "f-remove"]);
  });

  it("counts actions per kind", () => {
    expect(summarizePlan(plan)).toEqual({ push: 1, pull: 1, "remove-local": 1, "record-base": 1, conflict: 1, report: 1 });
  });

  it("lists pushed paths", () => {
    expect(pushedPaths(plan)).toEqual(["c-push"]);
  });

  it("is quiet only with nothing but reports and no halt", () => {
    expect(isQuiet(plan)).toBe(false);
    expect(isQuiet({ actions: [{ kind: "report", path: "x", reason: "deleted-locally" }], halt: undefined })).toBe(true);
    expect(isQuiet({ actions: [], halt: { kind: "remote-empty" } })).toBe(false);
  });
});
