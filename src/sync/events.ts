/**
 * Events the engine reports. `watch --json` prints them as JSON Lines with these stable
 * names (README, "Commands"); the human renderer turns them into concise lines.
 */

/** Stable event names. Never rename one: supervisors and scripts match on them. */
export type SyncEventName =
  | "ready"
  | "pushed"
  | "pulled"
  | "conflict"
  | "generating"
  | "idle"
  | "published"
  | "halted"
  | "rate_limited"
  | "error"
  | "notice";

/** One event. `dir` is the mapping's folder as written in .syncrc. */
export interface SyncEvent {
  event: SyncEventName;
  dir: string;
  editorId?: string;
  /** Paths concerned (pushed, pulled, conflicted...). */
  files?: string[];
  /** One-line human message. */
  message: string;
  /** Stable error code for `error` and `halted`. */
  code?: string;
  [extra: string]: unknown;
}

/** Where events go. */
export type EventSink = (event: SyncEvent) => void;
