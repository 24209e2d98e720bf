/**
 * Values a command's help states and its implementation uses: declared here, below both, so
 * the declarations (src/cli/declare/) stay free of implementation modules and the
 * implementations never import a declaration.
 */
import type { SyncEventName } from "../sync/events.js";

/** The port `mpsync dev` tries first; when taken, any free one. */
export const DEFAULT_DEV_PORT = 5180;

/** The shells `mpsync completion` writes a script for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;

/** Every event name `watch --json` prints, in the order `watch --help` lists them. */
export const WATCH_EVENT_NAMES = [
  "ready",
  "pushed",
  "pulled",
  "conflict",
  "deleted",
  "generating",
  "idle",
  "published",
  "halted",
  "rate_limited",
  "error",
  "notice",
] as const;

// A name added to SyncEventName and not listed above fails the build.
const listsEveryName: [Exclude<SyncEventName, (typeof WATCH_EVENT_NAMES)[number]>] extends [never] ? true : never = true;
void listsEveryName;
