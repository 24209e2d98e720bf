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

/**
 * What moves the state: a daemon event, a save seen beside the daemon, the last file holding
 * conflict markers saved without them (`mpsync resolve`, or an edit), or the end of a cycle.
 */
export type SyncStateInput =
  | { kind: "event"; event: string; code?: string | undefined; unresolved?: boolean | undefined; message: string }
  | { kind: "saved" }
  | { kind: "resolved" }
  | { kind: "cycle-end" };

const isOutage = (state: SyncState): state is Outage => Object.hasOwn(OUTAGE_WORDS, state);

/** The state after `input`. */
export function nextSyncState(state: SyncState, input: SyncStateInput): SyncState {
  // A save waits behind a pause, an outage, a conflict or a halt: the state keeps saying why.
  if (input.kind === "saved") return isOutage(state) || state === "conflict" || state === "attention" || state === "paused" ? state : "pushing";
  if (input.kind === "resolved") return state === "conflict" ? "pushing" : state;
  if (input.kind === "cycle-end") return state === "pushing" ? "synced" : state;
  // A paused folder syncs nothing: only `resume` (its RESUMED notice) ends the word; a halt still shows.
  if (state === "paused" && !(input.event === "notice" && input.code === "RESUMED")) return input.event === "halted" ? "attention" : state;
  switch (input.event) {
    case "ready":
    case "pushed":
    case "pulled":
    case "idle":
      return "synced";
    case "notice":
      if (input.code === "PAUSED") return "paused";
      return input.code === "RESUMED" && (isOutage(state) || state === "paused") ? "synced" : state;
    case "conflict":
      // Resolved by the policy (keep-local, keep-remote, an edit re-applied): said, nothing to do.
      return input.unresolved === false ? "synced" : "conflict";
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
