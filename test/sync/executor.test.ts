/**
 * The executor as a table: one plan action per row, run on the in-memory ports, with
 * the PATCH answered, failed or refused. Each row states the base moves the executor returns
 * (it writes no state: the BaseLedger records them), what lands locally and what is sent.
 */
import { describe, expect, it } from "vitest";
import { MpsyncError } from "../../src/core/errors.js";
import type { FileWrite } from "../../src/api/schemas.js";
import { executePlan, type ExecuteResult } from "../../src/sync/executor.js";
import { hashContent } from "../../src/core/hash.js";
import { createMemoryDesignStore, createMemoryLocalTree } from "../support/memory-ports.js";
import type { FileAction } from "../../src/sync/model.js";

const h = hashContent;
const BASE = "one\ntwo\nthree\n";
const MINE = "ONE\ntwo\nthree\n";
const THEIRS = "one\ntwo\nTHREE\n";
const MERGED = "ONE\ntwo\nTHREE\n";
const CLASH = "one\ntwo\nthree!\n";
const CLASH_MINE = "one\ntwo\nthree?\n";

/**
 * How the service answers each PATCH: "too-large" answers 413 to a PATCH of more than one
 * file, or holding big.ts; "fails-second" answers the first PATCH and fails the next ones.
 */
type Remote = "answered" | "fails" | "refuses-new" | "too-large" | "fails-second";

interface Row {
  name: string;
  local: Record<string, string>;
  remote: Record<string, string>;
  actions: FileAction[];
  remoteAnswers?: Remote;
  /** ExecuteDeps.pushPartBytes */
  partBytes?: number;
  /** Another writer sets `path` to `text` once the `after`-th PATCH was answered or refused. */
  remoteEdit?: { after: number; path: string; text: string };
  /** The read before a later PATCH fails with this code (a too-large answer, an outage). */
  recheckFails?: "TOO_LARGE" | "NETWORK";
  want: {
    bases: { path: string; hash: string | undefined }[];
    local?: Record<string, string | undefined>;
    sent?: string[][];
    result?: Partial<Record<"pushed" | "pulled" | "removed" | "changedMeanwhile" | "notSent" | "remoteMoved", string[]>> &
      Pick<Partial<ExecuteResult>, "refused">;
    pushError?: boolean;
    conflicts?: { path: string; unresolved: boolean }[];
  };
}

const rows: Row[] = [
  {
    name: "pull into an absent file: written, base = remote",
    local: {},
    remote: { "a.ts": THEIRS },
    actions: [{ kind: "pull", path: "a.ts", remoteHash: h(THEIRS), expectLocal: undefined, reason: "remote-new" }],
    want: { bases: [{ path: "a.ts", hash: h(THEIRS) }], local: { "a.ts": THEIRS }, result: { pulled: ["a.ts"] } },
  },
  {
    name: "pull over a file changed since the scan: left alone, no base move",
    local: { "a.ts": MINE },
    remote: { "a.ts": THEIRS },
    actions: [{ kind: "pull", path: "a.ts", remoteHash: h(THEIRS), expectLocal: h(BASE), reason: "remote-changed" }],
    want: { bases: [], local: { "a.ts": MINE }, result: { changedMeanwhile: ["a.ts"], pulled: [] } },
  },
  {
    name: "remove-local of an unchanged file: removed, base dropped",
    local: { "a.ts": BASE },
    remote: {},
    actions: [{ kind: "remove-local", path: "a.ts", expectLocal: h(BASE) }],
    want: { bases: [{ path: "a.ts", hash: undefined }], local: { "a.ts": undefined }, result: { removed: ["a.ts"] } },
  },
  {
    name: "record-base: the base moves, nothing is written or sent",
    local: { "a.ts": THEIRS },
    remote: { "a.ts": THEIRS },
    actions: [{ kind: "record-base", path: "a.ts", hash: h(THEIRS) }],
    want: { bases: [{ path: "a.ts", hash: h(THEIRS) }], sent: [] },
  },
  {
    name: "push answered: one PATCH, base = what was sent",
    local: { "a.ts": MINE, "b.ts": MINE },
    remote: { "a.ts": BASE, "b.ts": BASE },
    actions: [
      { kind: "push", path: "b.ts", expectLocal: h(MINE), reason: "local-changed" },
      { kind: "push", path: "a.ts", expectLocal: h(MINE), reason: "local-changed" },
    ],
    want: {
      bases: [
        { path: "a.ts", hash: h(MINE) },
        { path: "b.ts", hash: h(MINE) },
      ],
      sent: [["a.ts", "b.ts"]],
      result: { pushed: ["a.ts", "b.ts"] },
    },
  },
  {
    name: "push failed: no base move, the error is returned (the journal settles it later)",
    local: { "a.ts": MINE },
    remote: { "a.ts": BASE },
    actions: [{ kind: "push", path: "a.ts", expectLocal: h(MINE), reason: "local-changed" }],
    remoteAnswers: "fails",
    want: { bases: [], sent: [["a.ts"]], result: { pushed: [] }, pushError: true },
  },
  {
    name: "a new file refused (400): the known file still goes out, the new one is reported",
    local: { "a.ts": MINE, "new.ts": MINE },
    remote: { "a.ts": BASE },
    actions: [
      { kind: "push", path: "a.ts", expectLocal: h(MINE), reason: "local-changed" },
      { kind: "push", path: "new.ts", expectLocal: h(MINE), reason: "local-new" },
    ],
    remoteAnswers: "refuses-new",
    want: {
      bases: [{ path: "a.ts", hash: h(MINE) }],
      sent: [["a.ts", "new.ts"], ["a.ts"], ["new.ts"]],
      result: { pushed: ["a.ts"], refused: [{ path: "new.ts", reason: "new-name" }] },
    },
  },
  {
    name: "pushes larger than one part go out in parts, in order, each confirmed on its own",
    local: { "a.ts": MINE, "b.ts": MINE, "c.ts": MINE },
    remote: { "a.ts": BASE, "b.ts": BASE, "c.ts": BASE },
    actions: ["c.ts", "a.ts", "b.ts"].map((path) => ({ kind: "push", path, expectLocal: h(MINE), reason: "local-changed" })),
    partBytes: 2 * MINE.length,
    want: {
      bases: ["a.ts", "b.ts", "c.ts"].map((path) => ({ path, hash: h(MINE) })),
      sent: [["a.ts", "b.ts"], ["c.ts"]],
      result: { pushed: ["a.ts", "b.ts", "c.ts"] },
    },
  },
  {
    name: "a part refused as too large (413) is halved until each half fits",
    local: { "a.ts": MINE, "b.ts": MINE, "c.ts": MINE },
    remote: { "a.ts": BASE, "b.ts": BASE, "c.ts": BASE },
    actions: ["a.ts", "b.ts", "c.ts"].map((path) => ({ kind: "push", path, expectLocal: h(MINE), reason: "local-changed" })),
    remoteAnswers: "too-large",
    want: {
      bases: ["a.ts", "b.ts", "c.ts"].map((path) => ({ path, hash: h(MINE) })),
      sent: [["a.ts", "b.ts", "c.ts"], ["a.ts", "b.ts"], ["a.ts"], ["b.ts"], ["c.ts"]],
      result: { pushed: ["a.ts", "b.ts", "c.ts"] },
    },
  },
  {
    name: "after a 413, the parts that follow are cut to the size that fitted (not refused again)",
    local: Object.fromEntries(["a", "b", "c", "d", "e", "f"].map((n) => [`${n}.ts`, MINE])),
    remote: Object.fromEntries(["a", "b", "c", "d", "e", "f"].map((n) => [`${n}.ts`, BASE])),
    actions: ["a", "b", "c", "d", "e", "f"].map((n) => ({ kind: "push", path: `${n}.ts`, expectLocal: h(MINE), reason: "local-changed" })),
    partBytes: 3 * MINE.length,
    remoteAnswers: "too-large",
    want: {
      bases: ["a", "b", "c", "d", "e", "f"].map((n) => ({ path: `${n}.ts`, hash: h(MINE) })),
      sent: [["a.ts", "b.ts", "c.ts"], ["a.ts", "b.ts"], ["a.ts"], ["b.ts"], ["c.ts"], ["d.ts"], ["e.ts"], ["f.ts"]],
      result: { pushed: ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts", "f.ts"] },
    },
  },
  {
    name: "one file too large alone (413): refused once per content, the other file goes out",
    local: { "a.ts": MINE, "big.ts": MINE },
    remote: { "a.ts": BASE, "big.ts": BASE },
    actions: ["a.ts", "big.ts"].map((path) => ({ kind: "push", path, expectLocal: h(MINE), reason: "local-changed" })),
    remoteAnswers: "too-large",
    want: {
      bases: [{ path: "a.ts", hash: h(MINE) }],
      sent: [["a.ts", "big.ts"], ["a.ts"], ["big.ts"]],
      result: { pushed: ["a.ts"], refused: [{ path: "big.ts", reason: "too-large" }] },
    },
  },
  {
    name: "a re-send after a 413 reads its files again: one another writer changed since the cycle's read is not sent",
    local: { "a.ts": MINE, "b.ts": MINE, "c.ts": MINE },
    remote: { "a.ts": BASE, "b.ts": BASE, "c.ts": BASE },
    actions: ["a.ts", "b.ts", "c.ts"].map((path) => ({ kind: "push", path, expectLocal: h(MINE), reason: "local-changed" })),
    remoteAnswers: "too-large",
    remoteEdit: { after: 1, path: "b.ts", text: THEIRS },
    want: {
      bases: ["a.ts", "c.ts"].map((path) => ({ path, hash: h(MINE) })),
      sent: [["a.ts", "b.ts", "c.ts"], ["a.ts"], ["c.ts"]],
      result: { pushed: ["a.ts", "c.ts"], remoteMoved: ["b.ts"] },
    },
  },
  {
    name: "a later part reads its files again: a file another writer changed after the first part is not sent",
    local: { "a.ts": MINE, "b.ts": MINE, "c.ts": MINE },
    remote: { "a.ts": BASE, "b.ts": BASE, "c.ts": BASE },
    actions: ["a.ts", "b.ts", "c.ts"].map((path) => ({ kind: "push", path, expectLocal: h(MINE), reason: "local-changed" })),
    partBytes: MINE.length,
    remoteEdit: { after: 1, path: "c.ts", text: THEIRS },
    want: {
      bases: ["a.ts", "b.ts"].map((path) => ({ path, hash: h(MINE) })),
      sent: [["a.ts"], ["b.ts"]],
      result: { pushed: ["a.ts", "b.ts"], remoteMoved: ["c.ts"] },
    },
  },
  {
    name: "a later part with a new name: not sent when another writer created that name after the first part",
    local: { "a.ts": MINE, "n.ts": MINE, "o.ts": MINE },
    remote: { "a.ts": BASE },
    actions: [
      { kind: "push", path: "a.ts", expectLocal: h(MINE), reason: "local-changed" },
      { kind: "push", path: "n.ts", expectLocal: h(MINE), reason: "local-new" },
      { kind: "push", path: "o.ts", expectLocal: h(MINE), reason: "local-new" },
    ],
    partBytes: MINE.length,
    remoteEdit: { after: 1, path: "n.ts", text: THEIRS },
    want: {
      bases: ["a.ts", "o.ts"].map((path) => ({ path, hash: h(MINE) })),
      sent: [["a.ts"], ["o.ts"]],
      result: { pushed: ["a.ts", "o.ts"], remoteMoved: ["n.ts"] },
    },
  },
  {
    name: "a later part whose re-read fails (its answer too large) is not sent, and not taken for a 413 of the PATCH",
    local: { "a.ts": MINE, "b.ts": MINE },
    remote: { "a.ts": BASE, "b.ts": BASE },
    actions: ["a.ts", "b.ts"].map((path) => ({ kind: "push", path, expectLocal: h(MINE), reason: "local-changed" })),
    partBytes: MINE.length,
    recheckFails: "TOO_LARGE",
    want: { bases: [{ path: "a.ts", hash: h(MINE) }], sent: [["a.ts"]], result: { pushed: ["a.ts"], refused: [] }, pushError: true },
  },
  {
    name: "a failed part stops the push: the parts before it are confirmed, the rest stays pending",
    local: { "a.ts": MINE, "b.ts": MINE, "c.ts": MINE },
    remote: { "a.ts": BASE, "b.ts": BASE, "c.ts": BASE },
    actions: ["a.ts", "b.ts", "c.ts"].map((path) => ({ kind: "push", path, expectLocal: h(MINE), reason: "local-changed" })),
    partBytes: MINE.length,
    remoteAnswers: "fails-second",
    want: { bases: [{ path: "a.ts", hash: h(MINE) }], sent: [["a.ts"], ["b.ts"]], result: { pushed: ["a.ts"] }, pushError: true },
  },
  {
    name: "conflict, clean merge: written locally, base = remote, then = merge once the PATCH is answered",
    local: { "a.ts": MINE },
    remote: { "a.ts": THEIRS },
    actions: [{ kind: "conflict", path: "a.ts", policy: "merge", base: h(BASE), localHash: h(MINE), remoteHash: h(THEIRS) }],
    want: {
      bases: [
        { path: "a.ts", hash: h(THEIRS) },
        { path: "a.ts", hash: h(MERGED) },
      ],
      local: { "a.ts": MERGED },
      sent: [["a.ts"]],
      conflicts: [{ path: "a.ts", unresolved: false }],
    },
  },
  {
    name: "conflict, clean merge with a failed PATCH: base = remote only, so the merge is pushed again",
    local: { "a.ts": MINE },
    remote: { "a.ts": THEIRS },
    actions: [{ kind: "conflict", path: "a.ts", policy: "merge", base: h(BASE), localHash: h(MINE), remoteHash: h(THEIRS) }],
    remoteAnswers: "fails",
    want: { bases: [{ path: "a.ts", hash: h(THEIRS) }], local: { "a.ts": MERGED }, pushError: true },
  },
  {
    name: "conflict on the same line: markers written, nothing sent, base = remote",
    local: { "a.ts": CLASH_MINE },
    remote: { "a.ts": CLASH },
    actions: [{ kind: "conflict", path: "a.ts", policy: "merge", base: h(BASE), localHash: h(CLASH_MINE), remoteHash: h(CLASH) }],
    want: { bases: [{ path: "a.ts", hash: h(CLASH) }], sent: [], conflicts: [{ path: "a.ts", unresolved: true }] },
  },
  {
    name: "a pull-only plan's conflict (mpsync pull): the merge stays local, waiting to be pushed",
    local: { "a.ts": MINE },
    remote: { "a.ts": THEIRS },
    actions: [{ kind: "conflict", path: "a.ts", policy: "merge", base: h(BASE), localHash: h(MINE), remoteHash: h(THEIRS), waitToPush: true }],
    want: { bases: [{ path: "a.ts", hash: h(THEIRS) }], local: { "a.ts": MERGED }, sent: [], result: { notSent: ["a.ts"] } },
  },
];

async function run(row: Row): Promise<{ result: ExecuteResult; sent: string[][]; local: ReturnType<typeof createMemoryLocalTree> }> {
  const store = createMemoryDesignStore();
  const local = createMemoryLocalTree({ backups: store.backups });
  for (const [p, text] of Object.entries(row.local)) local.put(p, text);
  await store.putBase(BASE);
  const sent: string[][] = [];
  const remoteNames = new Set(Object.keys(row.remote));
  // The service's texts as they stand now: answered PATCHes and other writers change them.
  const remoteNow = new Map(Object.entries(row.remote));
  const result = await executePlan(
    {
      plan: { actions: row.actions, halt: undefined },
      localTexts: new Map(Object.entries(row.local)),
      remoteTexts: new Map(Object.entries(row.remote)),
      remoteNames,
      refused: () => undefined,
    },
    {
      ...(row.partBytes === undefined ? {} : { pushPartBytes: row.partBytes }),
      local,
      bases: store,
      stamp: "t1",
      hashOf: hashContent,
      writeRemote: (files: FileWrite[]) => {
        sent.push(files.map((f) => f.fileName));
        const edit = row.remoteEdit;
        if (edit !== undefined && edit.after === sent.length) remoteNow.set(edit.path, edit.text);
        const answer = row.remoteAnswers ?? "answered";
        if (answer === "fails") return Promise.reject(new MpsyncError("SERVER_ERROR", "500 from the service"));
        if (answer === "refuses-new" && files.some((f) => !remoteNames.has(f.fileName)))
          return Promise.reject(new MpsyncError("BAD_REQUEST", "the service refused a new name"));
        if (answer === "too-large" && (files.length > 1 || files.some((f) => f.fileName === "big.ts")))
          return Promise.reject(new MpsyncError("TOO_LARGE", "413 from the service"));
        if (answer === "fails-second" && sent.length > 1) return Promise.reject(new MpsyncError("SERVER_ERROR", "500 from the service"));
        for (const f of files) remoteNow.set(f.fileName, f.code);
        return Promise.resolve();
      },
      listRemote: () => Promise.resolve(new Set(remoteNow.keys())),
      readRemote: (paths: string[]) =>
        row.recheckFails !== undefined
          ? Promise.reject(new MpsyncError(row.recheckFails, "the read failed"))
          : Promise.resolve(new Map(paths.flatMap((p) => (remoteNow.has(p) ? [[p, remoteNow.get(p)!] as const] : [])))),
      saveConflict: (rel, sides, stamp) => store.saveConflict(rel, sides, stamp),
      remoteLabel: () => Promise.resolve("remote v2"),
    },
  );
  return { result, sent, local };
}

describe("executePlan with a journal that failed", () => {
  it("fails every write that reached the gate, leaves the files and rejects nothing unhandled (a replace refused first included)", async () => {
    const store = createMemoryDesignStore();
    const local = createMemoryLocalTree({ backups: store.backups });
    local.put("a.ts", BASE);
    local.put("b.ts", MINE);
    const journaled = Promise.reject(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }));
    journaled.catch(() => undefined);
    const pull = (path: string): FileAction => ({ kind: "pull", path, remoteHash: h(THEIRS), expectLocal: h(BASE), reason: "remote-changed" });
    // Like the real tree, whose first check reads the file: the gate is reached a turn later.
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const result = await executePlan(
      {
        plan: { actions: [pull("a.ts"), pull("b.ts")], halt: undefined },
        localTexts: new Map(),
        remoteTexts: new Map([
          ["a.ts", THEIRS],
          ["b.ts", THEIRS],
        ]),
        remoteNames: new Set(["a.ts", "b.ts"]),
        refused: () => undefined,
      },
      {
        local: { ...local, replaceIfUnchanged: async (...args) => (await turn(), local.replaceIfUnchanged(...args)) },
        bases: store,
        stamp: "t1",
        journaled,
        hashOf: hashContent,
        writeRemote: () => Promise.resolve(),
        listRemote: () => Promise.resolve(new Set()),
        readRemote: () => Promise.resolve(new Map()),
        saveConflict: () => Promise.resolve(),
        remoteLabel: () => Promise.resolve("remote v2"),
      },
    );
    expect(result.bases).toEqual([]);
    expect(result.failed.map((f) => [f.path, f.code])).toEqual([["a.ts", "ENOSPC"]]);
    expect(result.changedMeanwhile).toEqual(["b.ts"]);
    expect([local.text("a.ts"), local.text("b.ts")]).toEqual([BASE, MINE]);
  });
});

describe("executePlan", () => {
  it.each(rows.map((r) => [r.name, r] as const))("%s", async (_name, row) => {
    const { result, sent, local } = await run(row);
    expect(result.bases).toEqual(row.want.bases);
    for (const [p, text] of Object.entries(row.want.local ?? {})) expect(local.text(p)).toBe(text);
    if (row.want.sent !== undefined) expect(sent).toEqual(row.want.sent);
    for (const [key, list] of Object.entries(row.want.result ?? {})) expect(result[key as keyof ExecuteResult]).toEqual(list);
    expect(result.pushError !== undefined).toBe(row.want.pushError === true);
    if (row.want.conflicts !== undefined) expect(result.conflicts.map((c) => ({ path: c.path, unresolved: c.unresolved }))).toEqual(row.want.conflicts);
  });
});
