/**
 * The page's sync badge as a pure function of the daemon's events: synced, pushing (a save
 * the daemon has not sent yet), conflict (until the files holding markers are resolved),
 * paused, offline or service unavailable (sync/failure.ts `outageOf`, the terminal's rule and
 * words), generating, needs attention: every state `status` knows.
 */
import { OUTAGE_WORDS, outageOf, type Outage } from "../sync/failure.js";

/** What the badge shows. */
export type SyncState = "starting" | "synced" | "pushing" | "conflict" | "paused" | Outage | "generating" | "attention";

/**
 * What moves the badge: a daemon event, a save seen by the preview, the last file holding
 * conflict markers saved without them (`mpsync resolve`, or an edit), or the end of a cycle.
 */
export type BadgeInput =
  { kind: "event"; event: string; code?: string | undefined; message: string } | { kind: "saved" } | { kind: "resolved" } | { kind: "cycle-end" };

const isOutage = (state: SyncState): state is Outage => Object.hasOwn(OUTAGE_WORDS, state);

/** The badge after `input`. */
export function nextSyncState(state: SyncState, input: BadgeInput): SyncState {
  // A save waits behind a pause, an outage, a conflict or a halt: the badge keeps saying why.
  if (input.kind === "saved") return isOutage(state) || state === "conflict" || state === "attention" || state === "paused" ? state : "pushing";
  if (input.kind === "resolved") return state === "conflict" ? "pushing" : state;
  if (input.kind === "cycle-end") return state === "pushing" ? "synced" : state;
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

/** The badge's words for `state`: an outage is named as the terminal names it. */
export function syncBadgeLabel(state: SyncState): string {
  return isOutage(state) ? OUTAGE_WORDS[state].name : OTHER_LABELS[state];
}
