import { describe, expect, it } from "vitest";
import { afterSave, CLIENT_PROTOCOL, foldUpdate, readHello, statusBarText, type FolderView } from "./state-view.js";
import { CONTROL_PROTOCOL } from "../../src/daemon/control-channel.js";
import { controlSocketPath } from "../../src/daemon/control-channel.js";
import { socketPathOf } from "./daemon-link.js";

const event = (state: string, name: string, code?: string): unknown => ({
  state,
  label: state,
  event: { time: "t", event: name, dir: "site", message: "", code },
});

describe("the extension speaks the daemon's control protocol", () => {
  it("same version, same socket path (short and long folders)", () => {
    expect(CLIENT_PROTOCOL).toBe(CONTROL_PROTOCOL);
    for (const root of ["/tmp/site", `/tmp/${"x".repeat(120)}`]) expect(socketPathOf(root, 4242)).toBe(controlSocketPath(root, 4242));
  });
});

describe("readHello", () => {
  it("takes the state of a daemon of its version", () => {
    expect(readHello({ ok: true, protocol: CLIENT_PROTOCOL, message: "subscribed", state: "paused", label: "paused" })).toEqual({ ok: true, state: "paused" });
  });
  it.each([
    [{ ok: true, protocol: 2, state: "synced" }, "the running mpsync daemon speaks control protocol 2, this extension 1: update the older of the two"],
    [
      { ok: false, code: "USAGE", message: "malformed control request" },
      "the running mpsync daemon speaks an older control protocol, this extension 1: update the older of the two",
    ],
    [{ ok: false, protocol: 1, code: "USAGE", message: "no state here" }, "the mpsync daemon refused to stream its state: no state here"],
    [{ ok: true, protocol: 1, state: "dancing" }, "the mpsync daemon refused to stream its state: no reason given"],
  ])("%j: one line that says why", (line, message) => {
    expect(readHello(line)).toEqual({ ok: false, message });
  });
});

describe("foldUpdate and afterSave: the words follow the stream", () => {
  it.each<[string, unknown, string]>([
    ["synced", event("conflict", "conflict"), "conflict"],
    ["conflict", event("synced", "pushed"), "synced"],
    ["synced", event("paused", "notice", "PAUSED"), "paused"],
    ["pushing", { state: "synced", label: "synced", cycleEnd: true }, "synced"],
    ["paused", { state: "paused", label: "paused", cycleEnd: true }, "paused"],
    ["synced", "not an object", "synced"],
    ["synced", { state: "dancing" }, "synced"],
  ])("%s + %j -> %s", (state, line, next) => {
    expect(foldUpdate(state as never, line)).toBe(next);
  });
  it("a save shows pushing, except behind a conflict or a pause", () => {
    expect(afterSave("synced")).toBe("pushing");
    expect(afterSave("conflict")).toBe("conflict");
    expect(afterSave("paused")).toBe("paused");
  });
});

describe("statusBarText", () => {
  it.each<[FolderView, string]>([
    [{ kind: "live", state: "synced" }, "mpsync synced"],
    [{ kind: "live", state: "attention" }, "mpsync needs attention"],
    [{ kind: "live", state: "unavailable" }, "mpsync service unavailable"],
    [{ kind: "live", state: "paused" }, "mpsync paused"],
    [{ kind: "no-daemon", paused: true }, "mpsync paused"],
    [{ kind: "no-daemon", paused: false }, "mpsync not running"],
    [{ kind: "mismatch", message: "x" }, "mpsync needs an update"],
  ])("%j -> %s", (view, text) => {
    expect(statusBarText(view)).toBe(text);
  });
});
