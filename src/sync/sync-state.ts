/**
 * A folder's sync state in one word, the one vocabulary of every place that shows it (the
 * preview's badge, the daemon's control channel `subscribe` stream, the VS Code extension's
 * status bar): synced, pushing (a save the daemon has not sent yet), conflict, paused, offline
 * or service unavailable (sync/failure.ts `outageOf`, the terminal's rule and words),
 * generating, needs attention. A pure function of the daemon's events.
 */
import { OUTAGE_WORDS, outageOf, type Outage } from "./failure.js";

/** A folder's state. */
export type SyncState = "starting" | "synced" | "pushing" | "conflict" | "paused" | Outage | "generating" | "attention";

/** What moves the state: a daemon event, a save seen beside the daemon, or the end of a cycle. */
export type SyncStateInput = { kind: "event"; event: string; code?: string | undefined; message: string } | { kind: "saved" } | { kind: "cycle-end" };

const isOutage = (state: SyncState): state is Outage => Object.hasOwn(OUTAGE_WORDS, state);

/** The state after `input`. */
export function nextSyncState(state: SyncState, input: SyncStateInput): SyncState {
  // A paused folder syncs nothing: only `resume` (its RESUMED notice) ends the word.
  if (state === "paused") return input.kind === "event" && input.event === "notice" && input.code === "RESUMED" ? "synced" : state;
  // A save waits behind an outage, a conflict or a halt: the state keeps saying why.
  if (input.kind === "saved") return isOutage(state) || state === "conflict" || state === "attention" ? state : "pushing";
  if (input.kind === "cycle-end") return state === "pushing" ? "synced" : state;
  switch (input.event) {
    case "ready":
    case "pushed":
    case "pulled":
    case "idle":
      return "synced";
    case "notice":
      if (input.code === "PAUSED") return "paused";
      return input.code === "RESUMED" && isOutage(state) ? "synced" : state;
    case "conflict":
      return "conflict";
    case "generating":
      return "generating";
    case "halted":
      return "attention";
    case "error":
      return outageOf(input.code) ?? state;
    default:
      return state;
  }
}

const OTHER_LABELS: Readonly<Record<Exclude<SyncState, Outage>, string>> = {
  starting: "starting",
  synced: "synced",
  pushing: "pushing",
  conflict: "conflict",
  paused: "paused",
  generating: "generating",
  attention: "needs attention",
};

/** The words for `state`: an outage is named as the terminal names it. */
export function syncStateLabel(state: SyncState): string {
  return isOutage(state) ? OUTAGE_WORDS[state].name : OTHER_LABELS[state];
}

/** Every state, for a reader that checks a word it was sent (the control channel's clients). */
export const SYNC_STATES: readonly SyncState[] = ["starting", "synced", "pushing", "conflict", "paused", "offline", "unavailable", "generating", "attention"];
