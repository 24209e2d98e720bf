/**
 * What the status bar says for a folder, as pure functions of what the daemon's control
 * channel sends (docs/control-protocol.md). The words are the one vocabulary of
 * src/sync/sync-state.ts, shared with `mpsync status`'s daemon and the preview's badge.
 */
import { nextSyncState, SYNC_STATES, syncStateLabel, type SyncState } from "../../src/sync/sync-state.js";

/** The control protocol this extension speaks. */
export const CLIENT_PROTOCOL = 1;

/** What the extension knows of a folder. */
export type FolderView =
  { kind: "live"; state: SyncState } | { kind: "no-daemon"; paused: boolean } | { kind: "mismatch"; message: string } | { kind: "unknown" };

/** The first line of a `subscribe` answer: the state now, or why the extension cannot follow. */
export function readHello(line: unknown): { ok: true; state: SyncState } | { ok: false; message: string } {
  const reply = isObject(line) ? line : {};
  const protocol = reply["protocol"];
  if (protocol !== CLIENT_PROTOCOL) {
    const theirs = typeof protocol === "number" ? `control protocol ${protocol}` : "an older control protocol";
    return { ok: false, message: `the running mpsync daemon speaks ${theirs}, this extension ${CLIENT_PROTOCOL}: update the older of the two` };
  }
  if (reply["ok"] !== true || !isState(reply["state"])) {
    return { ok: false, message: `the mpsync daemon refused to stream its state: ${String(reply["message"] ?? "no reason given")}` };
  }
  return { ok: true, state: reply["state"] };
}

/** The state after one update line of the stream (an event or a cycle's end). */
export function foldUpdate(state: SyncState, line: unknown): SyncState {
  if (!isObject(line)) return state;
  if (line["cycleEnd"] === true) return nextSyncState(state, { kind: "cycle-end" });
  return isState(line["state"]) ? line["state"] : state;
}

/** The state after a save of a file in the folder (before the daemon has seen it). */
export function afterSave(state: SyncState): SyncState {
  return nextSyncState(state, { kind: "saved" });
}

/** The status bar's text. */
export function statusBarText(view: FolderView): string {
  switch (view.kind) {
    case "live":
      return `mpsync ${syncStateLabel(view.state)}`;
    case "no-daemon":
      return view.paused ? `mpsync ${syncStateLabel("paused")}` : "mpsync not running";
    case "mismatch":
      return "mpsync needs an update";
    case "unknown":
      return "mpsync";
  }
}

/** The status bar's tooltip. */
export function statusBarTooltip(view: FolderView, folder: string): string {
  switch (view.kind) {
    case "live":
      return `${folder}: ${syncStateLabel(view.state)} (click for mpsync status)`;
    case "no-daemon":
      return `no mpsync watch runs for ${folder}: run "mpsync: Start Sync"`;
    case "mismatch":
      return view.message;
    case "unknown":
      return folder;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isState(value: unknown): value is SyncState {
  return typeof value === "string" && (SYNC_STATES as readonly string[]).includes(value);
}
