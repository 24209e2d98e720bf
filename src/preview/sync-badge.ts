/**
 * The page's sync badge as a pure function of the daemon's events: synced, pushing (a save
 * the daemon has not sent yet), conflict, offline, generating, needs attention.
 */
import { OFFLINE_CODES } from "../sync/failure.js";

/** What the badge shows. */
export type SyncState = "starting" | "synced" | "pushing" | "conflict" | "offline" | "generating" | "attention";

/** What moves the badge: a daemon event, a save seen by the preview, or the end of a cycle. */
export type BadgeInput = { kind: "event"; event: string; code?: string | undefined; message: string } | { kind: "saved" } | { kind: "cycle-end" };

/** The badge after `input`. */
export function nextSyncState(state: SyncState, input: BadgeInput): SyncState {
  if (input.kind === "saved") return state === "offline" || state === "conflict" || state === "attention" ? state : "pushing";
  if (input.kind === "cycle-end") return state === "pushing" ? "synced" : state;
  switch (input.event) {
    case "ready":
    case "pushed":
    case "pulled":
    case "idle":
      return "synced";
    case "notice":
      return input.code === "RESUMED" && state === "offline" ? "synced" : state;
    case "conflict":
      return "conflict";
    case "generating":
      return "generating";
    case "halted":
      return "attention";
    case "error":
      return OFFLINE_CODES.has(input.code) ? "offline" : state;
    default:
      return state;
  }
}
