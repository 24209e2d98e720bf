import { describe, expect, it } from "vitest";
import { outagePrefix } from "./failure.js";
import { nextSyncState, syncStateLabel, type SyncStateInput, type SyncState } from "./sync-state.js";

const ev = (event: string, message = "", code?: string, unresolved?: boolean): SyncStateInput => ({ kind: "event", event, message, code, unresolved });

describe("nextSyncState", () => {
  it.each<[SyncState, SyncStateInput, SyncState]>([
    ["starting", ev("ready"), "synced"],
    ["synced", { kind: "saved" }, "pushing"],
    ["pushing", ev("pushed"), "synced"],
    ["pushing", { kind: "cycle-end" }, "synced"],
    ["synced", { kind: "cycle-end" }, "synced"],
    ["synced", ev("conflict"), "conflict"],
    ["synced", ev("conflict", "", undefined, true), "conflict"],
    ["pushing", ev("conflict", "conflict in App.tsx: resolved by keep-remote", undefined, false), "synced"],
    ["conflict", { kind: "saved" }, "conflict"],
    ["conflict", ev("pushed"), "synced"],
    ["pushing", ev("error", "offline: the service cannot be reached; retrying in 2 s", "NETWORK"), "offline"],
    // By code, not by the message's words; a 5xx is the service's trouble, as the terminal says.
    ["pushing", ev("error", "the service answered 503; retrying", "SERVER_ERROR"), "unavailable"],
    ["pushing", ev("error", "timed out", "TIMEOUT"), "offline"],
    ["unavailable", { kind: "saved" }, "unavailable"],
    ["unavailable", ev("notice", "the service answers again: sync resumed", "RESUMED"), "synced"],
    ["unavailable", ev("error", "offline: the service cannot be reached", "NETWORK"), "offline"],
    ["pushing", ev("error", "offline-looking words but a path error", "EACCES"), "pushing"],
    ["offline", { kind: "saved" }, "offline"],
    ["offline", { kind: "cycle-end" }, "offline"],
    ["offline", ev("notice", "back online: sync resumed", "RESUMED"), "synced"],
    ["synced", ev("error", "preview: App.tsx:3:1: Expected", "PREVIEW"), "synced"],
    ["synced", ev("generating"), "generating"],
    ["generating", ev("idle"), "synced"],
    ["synced", ev("halted"), "attention"],
    ["synced", ev("pulled"), "synced"],
    ["conflict", { kind: "resolved" }, "pushing"],
    ["synced", { kind: "resolved" }, "synced"],
    ["synced", ev("notice", "paused: local and remote changes wait until mpsync resume", "PAUSED"), "paused"],
    // A paused start says PAUSED before ready: the word stays until resume.
    ["paused", ev("ready"), "paused"],
    ["paused", { kind: "saved" }, "paused"],
    ["paused", { kind: "cycle-end" }, "paused"],
    ["paused", ev("error", "offline", "NETWORK"), "paused"],
    ["paused", ev("halted"), "attention"],
    ["paused", ev("notice", "resumed: syncing what changed meanwhile", "RESUMED"), "synced"],
  ])("%s + %j -> %s", (state, input, next) => {
    expect(nextSyncState(state, input)).toBe(next);
  });
});

describe("syncStateLabel: an outage is named as the terminal's line names it", () => {
  it.each<[string, SyncState]>([
    ["NETWORK", "offline"],
    ["TIMEOUT", "offline"],
    ["SERVER_ERROR", "unavailable"],
  ])("%s", (code, state) => {
    expect(nextSyncState("synced", ev("error", "", code))).toBe(state);
    expect(`${syncStateLabel(state)}: `).toBe(outagePrefix(code));
  });

  it("words for the other states", () => {
    expect(syncStateLabel("unavailable")).toBe("service unavailable");
    expect(syncStateLabel("attention")).toBe("needs attention");
    expect(syncStateLabel("synced")).toBe("synced");
    expect(syncStateLabel("paused")).toBe("paused");
  });
});
