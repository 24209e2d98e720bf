/**
 * The daemon loop's transition table: one row per rule of worker-loop.ts. Each row gives the
 * state before (only what differs from a fresh worker), the event, and what must follow.
 */
import { describe, expect, it } from "vitest";
import type { DesignStatus } from "../api/schemas.js";
import {
  initialLoopState,
  step,
  SETTLE_HEAP_MIN_FILES,
  STATUS_SAVE_INTERVAL_MS,
  type Effect,
  type LoopConfig,
  type LoopEvent,
  type LoopState,
} from "./worker-loop.js";

const cfg: LoopConfig = { label: "web", publishOnPush: false, remoteCheckMs: 60_000, retry: { baseMs: 1000, maxMs: 60_000 } };
const NOW = 1_000_000;

function state(over: Partial<LoopState> = {}): LoopState {
  // A worker that synced a moment ago and knows the remote names.
  return { ...initialLoopState(), lastRemoteRead: NOW - 1000, lastStatusSave: NOW - 1000, remoteNames: ["App.tsx"], ...over };
}

type StatusEvent = Extract<LoopEvent, { type: "status" }>;

function status(over: Partial<DesignStatus> = {}): StatusEvent {
  return {
    type: "status",
    status: { isGenerating: false, activeArtifactId: "a1", availableFiles: ["App.tsx"], ...over } as DesignStatus,
    persisted: { isGenerating: false, activeArtifactId: "a1" },
    artifactId: "a1",
    halted: false,
    gitBusy: false,
    now: NOW,
    at: NOW,
  };
}

function syncNow(over: Partial<Extract<LoopEvent, { type: "sync-now" }>> = {}): LoopEvent {
  return { type: "sync-now", request: 7, force: false, gitBusy: false, halted: false, artifactId: "a1", ...over };
}

const kinds = (effects: Effect[]): string[] => effects.map((e) => e.do);
const emitted = (effects: Effect[]): string[] => effects.flatMap((e) => (e.do === "emit" ? [`${e.event.event}: ${e.event.message}`] : []));

/** Steps from `before` on `event`: the effects' kinds, what they say, and the state after. */
function expectStep(
  before: Partial<LoopState>,
  event: LoopEvent,
  effects: string[],
  said: string[] | undefined,
  after: Partial<LoopState>,
  config = cfg,
): void {
  const out = step(state(before), event, config);
  expect(kinds(out.effects)).toEqual(effects);
  if (said !== undefined) expect(emitted(out.effects)).toEqual(said);
  expect(out.state).toMatchObject(after);
}

describe("worker loop: the content check reads a slice", () => {
  it("a due check with nothing pending reads a slice (check-scope.ts), not every file", () => {
    const out = step(state({ needsFullSync: true, checkOnly: true }), { type: "cycle", gitBusy: false, halted: false }, cfg);
    expect(out.effects).toEqual([{ do: "full-sync", check: true }]);
  });
});

describe("worker loop: local changes and cycles", () => {
  it.each<[string, Partial<LoopState>, LoopEvent, string[], Partial<LoopState>]>([
    ["start runs a full sync (edits made while down)", {}, { type: "start", generating: false }, ["enqueue-cycle"], { needsFullSync: true, generating: false }],
    ["start remembers a running generation", {}, { type: "start", generating: true }, ["enqueue-cycle"], { generating: true }],
    [
      "a local batch joins pending and queues a cycle",
      { pending: new Set(["a"]) },
      { type: "local", paths: ["b"] },
      ["enqueue-cycle"],
      { pending: new Set(["a", "b"]) },
    ],
    ["the stop sweep joins pending without a cycle", {}, { type: "swept", paths: ["c"] }, [], { pending: new Set(["c"]) }],
    [
      "a cycle while generating does nothing",
      { generating: true, pending: new Set(["a"]) },
      { type: "cycle", gitBusy: false, halted: false },
      [],
      { pending: new Set(["a"]) },
    ],
    [
      "a cycle after stop does nothing",
      { stopped: true, pending: new Set(["a"]) },
      { type: "cycle", gitBusy: false, halted: false },
      [],
      { pending: new Set(["a"]) },
    ],
    [
      "git busy: one waiter, pending kept",
      { pending: new Set(["a"]) },
      { type: "cycle", gitBusy: true, halted: false },
      ["wait-git"],
      { waitingForGit: true, pending: new Set(["a"]) },
    ],
    ["already waiting for git: no second waiter", { waitingForGit: true }, { type: "cycle", gitBusy: false, halted: false }, [], { waitingForGit: true }],
    [
      "a due full sync covers every pending path",
      { needsFullSync: true, pending: new Set(["a"]) },
      { type: "cycle", gitBusy: false, halted: false },
      ["full-sync"],
      { pending: new Set() },
    ],
    [
      "a due check with paths pending runs as a full sync",
      { needsFullSync: true, checkOnly: true, pending: new Set(["a"]) },
      { type: "cycle", gitBusy: false, halted: false },
      ["full-sync"],
      { pending: new Set() },
    ],
    [
      "a cycle done clears the check",
      { needsFullSync: true, checkOnly: true },
      { type: "cycle-done", full: true, report: undefined, hadPersistedError: false, now: NOW },
      [],
      { needsFullSync: false, checkOnly: false },
    ],
    ["a halted design is retried as a full sync", {}, { type: "cycle", gitBusy: false, halted: true }, ["full-sync"], {}],
    [
      "pending paths are pushed as one batch",
      { pending: new Set(["a", "b"]) },
      { type: "cycle", gitBusy: false, halted: false },
      ["push"],
      { pending: new Set() },
    ],
    ["nothing pending, nothing due: no work", {}, { type: "cycle", gitBusy: false, halted: false }, [], {}],
    ["a failed push puts its paths back", { pending: new Set(["c"]) }, { type: "unsent", paths: new Set(["a"]) }, [], { pending: new Set(["a", "c"]) }],
    ["the retry timer queues a cycle", { retryArmed: true }, { type: "retry-due" }, ["enqueue-cycle"], { retryArmed: false }],
    // A push's race window has passed: a content check reads it back and confirms it (sync/other-writers.ts).
    [
      "the confirmation timer queues a content check",
      { confirmArmed: true },
      { type: "confirm-due" },
      ["enqueue-cycle"],
      { confirmArmed: false, needsFullSync: true, checkOnly: true },
    ],
    [
      "the confirmation timer while generating: the idle status reads it",
      { confirmArmed: true, generating: true },
      { type: "confirm-due" },
      [],
      { confirmArmed: false },
    ],
    [
      "the confirmation timer while paused: nothing runs",
      { confirmArmed: true, paused: true },
      { type: "confirm-due" },
      [],
      { confirmArmed: false, needsFullSync: false },
    ],
    [
      "the confirmation timer with a full sync due: that sync reads it",
      { confirmArmed: true, needsFullSync: true },
      { type: "confirm-due" },
      [],
      { confirmArmed: false, checkOnly: false },
    ],
    [
      "git done: log once and send the batch",
      { waitingForGit: true },
      { type: "git-free", waitedMs: 10, operation: "rebase" },
      ["log", "enqueue-cycle"],
      { waitingForGit: false },
    ],
    ["git wait aborted (stop): changes stay on disk", { waitingForGit: true }, { type: "git-wait-ended" }, [], { waitingForGit: false }],
    [
      "a watcher failure is said once per kind",
      {},
      { type: "watcher-error", code: "ENOSPC", message: "limit reached" },
      ["log", "emit"],
      { watcherErrors: ["ENOSPC"] },
    ],
    [
      "the same watcher failure again: logged only",
      { watcherErrors: ["ENOSPC"] },
      { type: "watcher-error", code: "ENOSPC", message: "limit reached" },
      ["log"],
      { watcherErrors: ["ENOSPC"] },
    ],
    ["pause holds the folder and says so", {}, { type: "pause" }, ["emit"], { paused: true }],
    ["pause again: nothing more", { paused: true }, { type: "pause" }, [], { paused: true }],
    [
      "paused: a cycle does nothing, pending kept",
      { paused: true, pending: new Set(["a"]) },
      { type: "cycle", gitBusy: false, halted: false },
      [],
      { pending: new Set(["a"]) },
    ],
    ["paused: local changes still gather", { paused: true }, { type: "local", paths: ["b"] }, ["enqueue-cycle"], { pending: new Set(["b"]), paused: true }],
    [
      "resume says so and catches up with a full sync",
      { paused: true, pending: new Set(["a"]) },
      { type: "resume" },
      ["emit", "enqueue-cycle"],
      { paused: false, needsFullSync: true },
    ],
    ["resume when not paused: nothing", {}, { type: "resume" }, [], { paused: false }],
    ["sync now runs a full sync in the current task", {}, syncNow(), ["full-sync"], { needsFullSync: true }],
    ["sync now while paused: no cycle (the answer says why)", { paused: true }, syncNow(), ["answer-sync"], { needsFullSync: false }],
    ["stop halts", {}, { type: "stop" }, ["halt"], { stopped: true }],
    ["stop twice halts once", { stopped: true }, { type: "stop" }, [], { stopped: true }],
  ])("%s", (_name, before, event, effects, after) => expectStep(before, event, effects, undefined, after));

  it("the push effect carries exactly the pending paths", () => {
    const out = step(state({ pending: new Set(["a", "b"]) }), { type: "cycle", gitBusy: false, halted: false }, cfg);
    expect(out.effects[0]).toEqual({ do: "push", paths: new Set(["a", "b"]) });
  });

  it("does not change the state it was given", () => {
    const before = state({ pending: new Set(["a"]) });
    step(before, { type: "local", paths: ["b"] }, cfg);
    step(before, { type: "cycle", gitBusy: false, halted: false }, cfg);
    expect(before.pending).toEqual(new Set(["a"]));
  });
});

describe("worker loop: status answers", () => {
  it.each<[string, Partial<LoopState>, LoopEvent, string[], string[], Partial<LoopState>]>([
    [
      "a generation starts: said once, saved, no cycle",
      {},
      status({ isGenerating: true }),
      ["set-status", "emit", "save"],
      ["generating: design is generating: pushes wait until it is idle"],
      { generating: true },
    ],
    [
      "still generating, status unchanged: not saved again",
      { generating: true },
      { ...status({ isGenerating: true }), persisted: { isGenerating: true, activeArtifactId: "a1" } },
      ["set-status"],
      [],
      { generating: true },
    ],
    [
      "generation finished with a new version: full sync",
      { generating: true },
      { ...status({ activeArtifactId: "a2" }), persisted: { isGenerating: true, activeArtifactId: "a1" } },
      ["set-status", "emit", "full-sync", "save"],
      ["idle: generation finished"],
      { generating: false, needsFullSync: true },
    ],
    [
      "generation ended without a version: still a full sync",
      { generating: true },
      { ...status(), persisted: { isGenerating: true, activeArtifactId: "a1" } },
      ["set-status", "emit", "full-sync", "save"],
      ["idle: generation ended without a new version"],
      { needsFullSync: true },
    ],
    ["idle and unchanged: a push pass only, nothing saved", { pending: new Set(["a"]) }, status(), ["set-status", "push"], [], { needsFullSync: false }],
    ["idle, unchanged, nothing pending: no cycle", {}, status(), ["set-status"], [], { needsFullSync: false }],
    ["a new file name (same id): full sync", {}, status({ availableFiles: ["App.tsx", "b.ts"] }), ["set-status", "full-sync"], [], { needsFullSync: true }],
    [
      "a new artifact id: full sync, saved",
      {},
      { ...status({ activeArtifactId: "a2" }), persisted: { isGenerating: false, activeArtifactId: "a1" } },
      ["set-status", "full-sync", "save"],
      [],
      { needsFullSync: true },
    ],
    [
      "the content check is due: a check (a slice of the files)",
      { lastRemoteRead: NOW - 60_000 },
      status(),
      ["set-status", "full-sync"],
      [],
      { needsFullSync: true, checkOnly: true },
    ],
    [
      "a new version while a check is due: a full sync",
      { lastRemoteRead: NOW - 60_000 },
      status({ activeArtifactId: "a2" }),
      ["set-status", "full-sync", "save"],
      [],
      { needsFullSync: true, checkOnly: false },
    ],
    ["a halted design: full sync", {}, { ...status(), halted: true }, ["set-status", "full-sync"], [], { needsFullSync: true }],
    [
      "the wall clock stepped back 2 h: the check is still due (ages are monotonic)",
      { lastRemoteRead: NOW - 60_000 },
      { ...status(), at: NOW - 7_200_000 },
      ["set-status", "full-sync"],
      [],
      { needsFullSync: true },
    ],
    [
      "an unchanged status a minute later is saved",
      { lastStatusSave: NOW - STATUS_SAVE_INTERVAL_MS },
      status(),
      ["set-status", "save"],
      [],
      { lastStatusSave: NOW },
    ],
    [
      "no version yet: said once, no cycle",
      {},
      { ...status({ activeArtifactId: null, availableFiles: [] }), persisted: { isGenerating: false, activeArtifactId: null } },
      ["set-status", "emit"],
      ["notice: nothing to pull yet: it has no version yet; sync starts with its first version"],
      { noArtifactNoted: true },
    ],
    [
      "no version yet, already said: silent",
      { noArtifactNoted: true },
      { ...status({ activeArtifactId: null, availableFiles: [] }), persisted: { isGenerating: false, activeArtifactId: null } },
      ["set-status"],
      [],
      { noArtifactNoted: true },
    ],
    [
      "a first generation without a result",
      { generating: true },
      status({ activeArtifactId: null, availableFiles: [] }),
      ["set-status", "emit", "save"],
      ["notice: nothing to pull yet: its first generation ended without a result; sync starts with its first version"],
      { generating: false },
    ],
    ["a version arrives: the note may be said again later", { noArtifactNoted: true }, status(), ["set-status"], [], { noArtifactNoted: false }],
    ["after stop: ignored", { stopped: true }, status({ activeArtifactId: "a2" }), [], [], { needsFullSync: false }],
    [
      "the service answers after an outage: back online is said before the cycle",
      { lastErrorCode: "NETWORK", failures: 2 },
      status(),
      ["set-status", "emit", "clear-error"],
      ["notice: back online: sync resumed"],
      { lastErrorCode: undefined },
    ],
    [
      "the service answers after answering 5xx: not said as back online, this machine never was offline",
      { lastErrorCode: "SERVER_ERROR", failures: 2 },
      status(),
      ["set-status", "emit", "clear-error"],
      ["notice: the service answers again: sync resumed"],
      { lastErrorCode: undefined },
    ],
    [
      "the service answers after a full disk: said when a cycle works, not here",
      { lastErrorCode: "DISK_FULL" },
      status(),
      ["set-status"],
      [],
      { lastErrorCode: "DISK_FULL" },
    ],
  ])("%s", (_name, before, event, effects, said, after) => expectStep(before, event, effects, said, after));
});

describe("worker loop: a cycle's end", () => {
  const report = (pulledOrRemoved: number, pushed: number) => ({ remoteNames: ["App.tsx", "new.ts"], pulledOrRemoved, pushed });
  const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i}.ts`);
  it.each<[string, Partial<LoopState>, LoopConfig, LoopEvent, string[], string[], Partial<LoopState>]>([
    [
      "a full sync resets the check clock",
      { needsFullSync: true, failures: 3 },
      cfg,
      { type: "cycle-done", full: true, report: report(0, 0), hadPersistedError: false, now: NOW },
      [],
      [],
      { needsFullSync: false, lastRemoteRead: NOW, failures: 0, remoteNames: ["App.tsx", "new.ts"] },
    ],
    [
      "a push pass keeps the check clock",
      { needsFullSync: false },
      cfg,
      { type: "cycle-done", full: false, report: report(0, 1), hadPersistedError: false, now: NOW },
      ["arm-confirm"],
      [],
      { lastRemoteRead: NOW - 1000, confirmArmed: true },
    ],
    [
      "back online after an outage",
      { lastErrorCode: "NETWORK" },
      cfg,
      { type: "cycle-done", full: false, report: undefined, hadPersistedError: true, now: NOW },
      ["emit", "clear-error"],
      ["notice: back online: sync resumed"],
      { lastErrorCode: undefined },
    ],
    [
      "the service answers again after 5xx answers",
      { lastErrorCode: "SERVER_ERROR" },
      cfg,
      { type: "cycle-done", full: false, report: undefined, hadPersistedError: true, now: NOW },
      ["emit", "clear-error"],
      ["notice: the service answers again: sync resumed"],
      { lastErrorCode: undefined },
    ],
    [
      "space again after a full disk",
      { lastErrorCode: "DISK_FULL" },
      cfg,
      { type: "cycle-done", full: false, report: undefined, hadPersistedError: true, now: NOW },
      ["emit", "clear-error"],
      ["notice: the disk has space again: sync resumed"],
      { lastErrorCode: undefined },
    ],
    [
      "resumed after another failure",
      { lastErrorCode: "RATE_LIMITED" },
      cfg,
      { type: "cycle-done", full: false, report: undefined, hadPersistedError: true, now: NOW },
      ["emit", "clear-error"],
      ["notice: sync resumed"],
      {},
    ],
    [
      "an error a killed run left is cleared silently",
      {},
      cfg,
      { type: "cycle-done", full: false, report: undefined, hadPersistedError: true, now: NOW },
      ["clear-error"],
      [],
      {},
    ],
    [
      "files pulled: commit-on-pull runs",
      {},
      cfg,
      { type: "cycle-done", full: true, report: report(2, 0), hadPersistedError: false, now: NOW },
      ["after-pull"],
      [],
      {},
    ],
    [
      "pushed with publishOnPush: publish",
      {},
      { ...cfg, publishOnPush: true },
      { type: "cycle-done", full: false, report: report(0, 1), hadPersistedError: false, now: NOW },
      ["publish", "arm-confirm"],
      [],
      { confirmArmed: true },
    ],
    [
      "pushed without publishOnPush: no publish",
      {},
      cfg,
      { type: "cycle-done", full: false, report: report(0, 1), hadPersistedError: false, now: NOW },
      ["arm-confirm"],
      [],
      { confirmArmed: true },
    ],
    [
      "a full sync of a large design: its memory is settled",
      {},
      cfg,
      {
        type: "cycle-done",
        full: true,
        report: { remoteNames: names(SETTLE_HEAP_MIN_FILES), pulledOrRemoved: 0, pushed: 0 },
        hadPersistedError: false,
        now: NOW,
      },
      ["settle-heap"],
      [],
      {},
    ],
    [
      "a full sync that pulled many files into a small listing: settled",
      {},
      cfg,
      {
        type: "cycle-done",
        full: true,
        report: { remoteNames: names(3), pulledOrRemoved: SETTLE_HEAP_MIN_FILES, pushed: 0 },
        hadPersistedError: false,
        now: NOW,
      },
      ["after-pull", "settle-heap"],
      [],
      {},
    ],
    [
      "a full sync of a smaller design: nothing to settle",
      {},
      cfg,
      {
        type: "cycle-done",
        full: true,
        report: { remoteNames: names(SETTLE_HEAP_MIN_FILES - 1), pulledOrRemoved: 0, pushed: 0 },
        hadPersistedError: false,
        now: NOW,
      },
      [],
      [],
      {},
    ],
    [
      "a push pass on a large design: nothing to settle",
      {},
      cfg,
      {
        type: "cycle-done",
        full: false,
        report: { remoteNames: names(SETTLE_HEAP_MIN_FILES), pulledOrRemoved: 0, pushed: 1 },
        hadPersistedError: false,
        now: NOW,
      },
      ["arm-confirm"],
      [],
      { confirmArmed: true },
    ],
  ])("%s", (_name, before, config, event, effects, said, after) => expectStep(before, event, effects, said, after, config));
});

describe("worker loop: the engine heard from the service (a retried cycle before any poll)", () => {
  it.each<[string, Partial<LoopState>, string[], string[], Partial<LoopState>]>([
    [
      "after an outage: back online, said before the engine's pushed",
      { lastErrorCode: "NETWORK", failures: 2 },
      ["emit", "clear-error"],
      ["notice: back online: sync resumed"],
      { lastErrorCode: undefined },
    ],
    ["then the cycle's end says nothing more", { lastErrorCode: undefined }, [], [], { lastErrorCode: undefined }],
    ["after a full disk: the disk is not the service, said at the cycle's end", { lastErrorCode: "DISK_FULL" }, [], [], { lastErrorCode: "DISK_FULL" }],
    ["no failure: nothing", {}, [], [], {}],
  ])("%s", (_name, before, effects, said, after) => expectStep(before, { type: "answered" }, effects, said, after));

  it("back online once: the cycle's end after an answer does not say it again", () => {
    const answered = step(state({ lastErrorCode: "TIMEOUT" }), { type: "answered" }, cfg);
    const done = step(answered.state, { type: "cycle-done", full: false, report: undefined, hadPersistedError: false, now: NOW }, cfg);
    expect(emitted([...answered.effects, ...done.effects])).toEqual(["notice: back online: sync resumed"]);
  });
});

describe("worker loop: failures", () => {
  const failed = (failure: "fatal" | "stop-design" | "wait" | "git" | "retry", code: string, jitter = 0.5): LoopEvent => ({
    type: "failed",
    failure,
    code,
    message: "service unreachable",
    jitter,
  });

  it.each<[string, Partial<LoopState>, LoopEvent, string[], string[], Partial<LoopState>]>([
    [
      "an outage: said once with the next try, retried, recorded",
      {},
      failed("retry", "NETWORK"),
      ["arm-retry", "emit", "record-error"],
      ["error: offline: service unreachable; retrying (next try in 0.8 s)"],
      { failures: 1, retryArmed: true, lastErrorCode: "NETWORK" },
    ],
    [
      "the service answering 5xx: said as the service's trouble, not as this machine offline",
      {},
      failed("retry", "SERVER_ERROR"),
      ["arm-retry", "emit", "record-error"],
      ["error: service unavailable: service unreachable; retrying (next try in 0.8 s)"],
      { failures: 1, retryArmed: true, lastErrorCode: "SERVER_ERROR" },
    ],
    [
      "the same failure again: not said again",
      { failures: 1, lastErrorCode: "NETWORK" },
      failed("retry", "NETWORK"),
      ["arm-retry", "record-error"],
      [],
      { failures: 2 },
    ],
    [
      "a full disk: said once, with how it ends",
      {},
      failed("retry", "DISK_FULL"),
      ["arm-retry", "emit", "record-error"],
      ["error: service unreachable; sync resumes by itself once space is freed (next try in 0.8 s)"],
      { lastErrorCode: "DISK_FULL" },
    ],
    [
      "a full disk again: silent",
      { failures: 3, lastErrorCode: "DISK_FULL" },
      failed("retry", "DISK_FULL"),
      ["arm-retry", "record-error"],
      [],
      { failures: 4 },
    ],
    [
      "a retry already armed: no second timer",
      { retryArmed: true, failures: 1 },
      failed("retry", "RATE_LIMITED"),
      ["emit", "record-error"],
      ["error: service unreachable; retrying"],
      { failures: 1 },
    ],
    [
      "no version yet is not a failure",
      {},
      failed("wait", "NO_ARTIFACT"),
      ["emit"],
      ["notice: nothing to pull yet: it has no version yet; sync starts with its first version"],
      { needsFullSync: true, failures: 0 },
    ],
    [
      "git began during the cycle: its work is redone in full once git is done; no error, no retry",
      {},
      failed("git", "GIT_BUSY"),
      ["log", "wait-git"],
      [],
      { waitingForGit: true, needsFullSync: true, failures: 0, retryArmed: false },
    ],
    ["git began during the cycle, already waiting: nothing more", { waitingForGit: true }, failed("git", "GIT_BUSY"), [], [], { waitingForGit: true }],
    ["a refused key stops the daemon", {}, failed("fatal", "UNAUTHORIZED"), ["halt", "fatal"], [], { stopped: true }],
    [
      "no access stops this design only",
      {},
      failed("stop-design", "FORBIDDEN"),
      ["emit", "halt", "close-source", "stopped"],
      ["error: service unreachable; sync of web stopped"],
      { stopped: true },
    ],
  ])("%s", (_name, before, event, effects, said, after) => expectStep(before, event, effects, said, after));

  it("backs off exponentially, with jitter in the upper half, up to maxMs", () => {
    const delays = [0, 1, 2, 3, 10].map((failures) => {
      const out = step(state({ failures }), failed("retry", "NETWORK", 0), cfg);
      const arm = out.effects.find((e) => e.do === "arm-retry");
      return arm?.do === "arm-retry" ? arm.delayMs : undefined;
    });
    expect(delays).toEqual([500, 1000, 2000, 4000, 30_000]);
    const top = step(state({ failures: 10 }), failed("retry", "NETWORK", 0.999), cfg).effects.find((e) => e.do === "arm-retry");
    expect(top?.do === "arm-retry" && top.delayMs).toBeLessThan(60_000);
  });
});

describe("worker loop: what a full sync takes (the start-up read, a named version, its read sent ahead)", () => {
  const v2 = { artifactId: "a2", files: ["App.tsx", "b.ts"] };
  const due: Partial<LoopState> = { needsFullSync: true };
  const cycle = (artifactId = "a1"): LoopEvent => ({ type: "cycle", gitBusy: false, halted: false, artifactId });
  it.each<[string, Partial<LoopState>, LoopEvent, Effect[], Partial<LoopState>]>([
    [
      "the start-up cycle takes the read sent while the watcher got ready",
      { ...due, readAhead: { of: "start-up" } },
      cycle(),
      [{ do: "full-sync", readAhead: true, force: false }],
      { readAhead: undefined },
    ],
    [
      "a new version a status answer named: its list spares the active-artifact call, and its read sent ahead is taken",
      { ...due, named: v2, readAhead: { of: "version", artifactId: "a2" } },
      cycle(),
      [{ do: "full-sync", readAhead: true, force: false, active: v2 }],
      { named: undefined, readAhead: undefined },
    ],
    [
      "a read sent ahead for another version is dropped, not taken",
      { ...due, named: v2, readAhead: { of: "version", artifactId: "a3" } },
      cycle(),
      [{ do: "drop-read-ahead" }, { do: "full-sync", readAhead: false, force: false, active: v2 }],
      { readAhead: undefined },
    ],
    ["the named version is the one synced: nothing to name", { ...due, named: v2 }, cycle("a2"), [{ do: "full-sync", readAhead: false, force: false }], {}],
    [
      "a content check of the version synced takes its list from the status answer",
      { ...due, checkOnly: true, named: v2 },
      cycle("a2"),
      [{ do: "full-sync", check: true, listed: v2 }],
      { named: undefined },
    ],
    [
      "a content check while a new version is named: a full sync of that version",
      { ...due, checkOnly: true, named: v2 },
      cycle("a1"),
      [{ do: "full-sync", readAhead: false, force: false, active: v2 }],
      {},
    ],
    [
      "a content check while the start-up read is out: a full sync that takes it",
      { ...due, checkOnly: true, readAhead: { of: "start-up" } },
      cycle(),
      [{ do: "full-sync", readAhead: true, force: false }],
      {},
    ],
    [
      "a push pass forgets the named version and leaves the read sent ahead to its end",
      { pending: new Set(["a"]), named: v2, readAhead: { of: "version", artifactId: "a2" } },
      cycle(),
      [{ do: "push", paths: new Set(["a"]) }],
      { named: undefined, readAhead: { of: "version", artifactId: "a2" } },
    ],
    ["no cycle: the named version waits for the next one", { named: v2 }, cycle(), [], { named: v2 }],
  ])("%s", (_name, before, event, effects, after) => {
    const out = step(state(before), event, cfg);
    expect(out.effects).toEqual(effects);
    expect(out.state).toMatchObject(after);
  });

  const ahead: Partial<LoopState> = { readAhead: { of: "version", artifactId: "a2" } };
  const pushDone = (report: { remoteNames: string[]; pulledOrRemoved: number; pushed: number } | undefined): LoopEvent => ({
    type: "cycle-done",
    full: false,
    report,
    hadPersistedError: false,
    now: NOW,
  });
  it.each<[string, LoopEvent, string[], Partial<LoopState>]>([
    [
      "a push that sent something: the read sent ahead may be of a replaced version, dropped",
      pushDone({ remoteNames: [], pulledOrRemoved: 0, pushed: 1 }),
      ["arm-confirm", "drop-read-ahead"],
      { readAhead: undefined, confirmArmed: true },
    ],
    ["a push that found nothing to send (an echo of the tool's writes): the read stays", pushDone(undefined), [], ahead],
    ["a failed push (its paths put back): dropped", { type: "unsent", paths: new Set(["a"]) }, ["drop-read-ahead"], { readAhead: undefined }],
  ])("%s", (_name, event, effects, after) => {
    const out = step(state(ahead), event, cfg);
    expect(kinds(out.effects)).toEqual(effects);
    expect(out.state).toMatchObject(after);
  });

  it("a status answer names its version, and the full sync it starts takes the read sent as it arrived", () => {
    const ahead = state({ readAhead: { of: "version", artifactId: "a2" } });
    const out = step(
      ahead,
      { ...status({ activeArtifactId: "a2", availableFiles: v2.files }), persisted: { isGenerating: false, activeArtifactId: "a1" } },
      cfg,
    );
    expect(out.effects.filter((e) => e.do === "full-sync")).toEqual([{ do: "full-sync", readAhead: true, force: false, active: v2 }]);
    expect(out.state.readAhead).toBeUndefined();
  });

  it.each<[string, Partial<LoopState>, LoopEvent, string[]]>([
    ["a status task with no cycle drops the read sent ahead", {}, status(), ["set-status", "drop-read-ahead"]],
    ["a generation began: the read sent ahead is dropped", {}, status({ isGenerating: true }), ["set-status", "emit", "save", "drop-read-ahead"]],
    ["after stop: dropped", { stopped: true }, status(), ["drop-read-ahead"]],
  ])("%s", (_name, before, event, effects) => {
    const out = step(state({ ...before, readAhead: { of: "version", artifactId: "a2" } }), event, cfg);
    expect(kinds(out.effects)).toEqual(effects);
    expect(out.state.readAhead).toBeUndefined();
  });
});

describe("worker loop: reads sent ahead of their cycle", () => {
  const answer = (over: Partial<DesignStatus> = {}, event: Partial<Extract<LoopEvent, { type: "status-arrived" }>> = {}): LoopEvent => ({
    type: "status-arrived",
    status: { isGenerating: false, activeArtifactId: "a2", availableFiles: ["App.tsx"], ...over } as DesignStatus,
    artifactId: "a1",
    gitBusy: false,
    chainIdle: true,
    ...event,
  });
  it.each<[string, Partial<LoopState>, LoopEvent, Effect[], Partial<LoopState>]>([
    [
      "an answer naming a new version, nothing queued: its read goes out as it arrives",
      {},
      answer(),
      [{ do: "read-ahead", version: { artifactId: "a2", files: ["App.tsx"] } }],
      { readAhead: { of: "version", artifactId: "a2" } },
    ],
    [
      "a task queued or running on the chain: no read (a cycle first could change what to read)",
      {},
      answer({}, { chainIdle: false }),
      [],
      { readAhead: undefined },
    ],
    ["the version synced already: no read", {}, answer({ activeArtifactId: "a1" }), [], { readAhead: undefined }],
    ["generating: no read", {}, answer({ isGenerating: true }), [], { readAhead: undefined }],
    ["no version yet: no read", {}, answer({ activeArtifactId: null }), [], { readAhead: undefined }],
    ["git busy: no read", {}, answer({}, { gitBusy: true }), [], { readAhead: undefined }],
    ["waiting for git: no read", { waitingForGit: true }, answer(), [], { readAhead: undefined }],
    ["paused: no read", { paused: true }, answer(), [], { readAhead: undefined }],
    ["stopped: no read", { stopped: true }, answer(), [], { readAhead: undefined }],
    [
      "an earlier read still held is dropped first",
      { readAhead: { of: "version", artifactId: "a9" } },
      answer({ activeArtifactId: "a1" }),
      [{ do: "drop-read-ahead" }],
      { readAhead: undefined },
    ],
    [
      "opened: the start-up read goes out before the watcher is ready",
      {},
      { type: "opened", generating: false, gitBusy: false },
      [{ do: "read-ahead" }],
      { readAhead: { of: "start-up" } },
    ],
    ["opened while generating: no read (the start-up cycle waits)", {}, { type: "opened", generating: true, gitBusy: false }, [], { readAhead: undefined }],
    ["opened while git is busy: no read", {}, { type: "opened", generating: false, gitBusy: true }, [], { readAhead: undefined }],
    ["opened while paused: no read", { paused: true }, { type: "opened", generating: false, gitBusy: false }, [], { readAhead: undefined }],
    [
      "ready: said, and a start-up read no cycle took is dropped",
      { readAhead: { of: "start-up" } },
      { type: "ready" },
      [{ do: "emit", event: { event: "ready", message: "watching for changes" } }, { do: "drop-read-ahead" }],
      { readAhead: undefined },
    ],
    ["ready after the start-up cycle stopped the design: not said", { stopped: true }, { type: "ready" }, [], {}],
  ])("%s", (_name, before, event, effects, after) => {
    const out = step(state(before), event, cfg);
    expect(out.effects).toEqual(effects);
    expect(out.state).toMatchObject(after);
  });
});

describe("worker loop: mpsync sync handed to the daemon", () => {
  const answer = (code: string, message: string): Effect => ({ do: "answer-sync", request: 7, answer: { ok: false, code, message } });
  it.each<[string, Partial<LoopState>, LoopEvent, Effect[], Partial<LoopState>]>([
    [
      "a full sync that carries the request and the force",
      {},
      syncNow({ force: true }),
      [{ do: "full-sync", readAhead: false, force: true, request: { id: 7, wasHalted: false } }],
      { needsFullSync: true, checkOnly: false },
    ],
    [
      "a due content check becomes the full sync asked for",
      { needsFullSync: true, checkOnly: true },
      syncNow({ halted: true }),
      [{ do: "full-sync", readAhead: false, force: false, request: { id: 7, wasHalted: true } }],
      { checkOnly: false },
    ],
    ["stopped: answered at once", { stopped: true }, syncNow(), [answer("STOPPED", "its sync has stopped")], {}],
    ["paused: answered at once", { paused: true }, syncNow(), [answer("PAUSED", "paused: run mpsync resume first")], { needsFullSync: false }],
    [
      "generating: skipped, said, and the full sync stays due",
      { generating: true },
      syncNow(),
      [answer("GENERATING", "the design is generating; it syncs when idle")],
      { needsFullSync: true },
    ],
    [
      "git busy: one waiter, skipped, said, the full sync stays due",
      {},
      syncNow({ gitBusy: true }),
      [{ do: "wait-git" }, answer("GIT_BUSY", "a git operation holds the repository; it syncs when git is done")],
      { waitingForGit: true, needsFullSync: true },
    ],
    [
      "already waiting for git: skipped, no second waiter",
      { waitingForGit: true },
      syncNow(),
      [answer("GIT_BUSY", "a git operation holds the repository; it syncs when git is done")],
      { waitingForGit: true },
    ],
  ])("%s", (_name, before, event, effects, after) => {
    const out = step(state(before), event, cfg);
    expect(out.effects).toEqual(effects);
    expect(out.state).toMatchObject(after);
  });

  const done = (wasHalted: boolean, halted: boolean): LoopEvent => ({
    type: "cycle-done",
    full: true,
    report: { remoteNames: ["App.tsx"], pulledOrRemoved: 1, pushed: 0 },
    hadPersistedError: false,
    now: NOW,
    request: { id: 7, wasHalted },
    halted,
  });
  it.each<[string, LoopEvent, boolean]>([
    ["the full sync's end answers the request, last", done(false, false), false],
    ["a halt the full sync cleared is in the answer", done(true, false), true],
    ["a halt still there: not cleared", done(true, true), false],
  ])("%s", (_name, event, haltCleared) => {
    const out = step(state(), event, cfg);
    expect(out.effects.at(-1)).toEqual({ do: "answer-sync", request: 7, answer: { ok: true, haltCleared } });
    expect(kinds(out.effects)).toEqual(["after-pull", "answer-sync"]);
  });

  it("a failed full sync answers the request with the reply's words, then fails as any cycle does", () => {
    const event: LoopEvent = {
      type: "failed",
      failure: "retry",
      code: "NETWORK",
      message: "service unreachable",
      jitter: 0.5,
      answers: { request: 7, code: "NETWORK", message: "no answer" },
    };
    const out = step(state(), event, cfg);
    expect(out.effects[0]).toEqual({ do: "answer-sync", request: 7, answer: { ok: false, code: "NETWORK", message: "no answer" } });
    expect(kinds(out.effects)).toEqual(["answer-sync", "arm-retry", "emit", "record-error"]);
  });
});
