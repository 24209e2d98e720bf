/**
 * What a failed cycle (or a failed start) means for the daemon, decided in one place (issue 15):
 * - `fatal`: the whole daemon stops (the key is refused: every design would fail alike);
 * - `stop-design`: this design stops, the others go on (no access to it, it is gone, its
 *   `.mpsync` is unsafe, another process took its folder);
 * - `wait`: not a failure (the design has no version yet; its first one starts sync);
 * - `git`: not a failure (a git operation began during the cycle: its push waits for git);
 * - `retry`: anything else, retried with backoff (network, 5xx, 429, a path that failed).
 */
import { hasCode } from "../core/errors.js";

/** The daemon's answer to one failure. */
export type FailureClass = "fatal" | "stop-design" | "wait" | "git" | "retry";

/** Classifies `err` (any thrown value). */
export function classifyFailure(err: unknown): FailureClass {
  if (hasCode(err, "UNAUTHORIZED", "NO_API_KEY")) return "fatal";
  if (hasCode(err, "FORBIDDEN", "NOT_FOUND", "UNSAFE_STATE_DIR", "FOLDER_LOCKED", "CONFIG_INVALID")) return "stop-design";
  if (hasCode(err, "NO_ARTIFACT")) return "wait";
  if (hasCode(err, "GIT_BUSY")) return "git";
  return "retry";
}
