/**
 * What a failed cycle (or a failed start) means for the daemon, decided in one place (table-tested):
 * - `fatal`: the whole daemon stops (the key is refused: every design would fail alike);
 * - `stop-design`: this design stops, the others go on (no access to it, it is gone, its
 *   `.mpsync` is unsafe, another process took its folder);
 * - `wait`: not a failure (the design has no version yet; its first one starts sync);
 * - `git`: not a failure (a git operation began during the cycle: its push waits for git);
 * - `retry`: anything else, retried with backoff (network, 5xx, 429, a path that failed).
 */
import { errorCode, hasCode, errnoCode } from "../core/errors.js";
import { describeError } from "./describe-error.js";

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

/** Codes of a service that cannot be reached or answers 5xx (see outagePrefix and recoveryPrefix). */
export const OFFLINE_CODES: ReadonlySet<string | undefined> = new Set(["NETWORK", "TIMEOUT", "SERVER_ERROR"]);

/**
 * How an outage's first line begins: "offline: " when this machine cannot reach the service
 * (NETWORK, TIMEOUT), "service unavailable: " when the service answers 5xx (the network is
 * fine: a user is not sent to their wifi), "" for any other failure.
 */
export function outagePrefix(code: string | undefined): string {
  if (code === "SERVER_ERROR") return "service unavailable: ";
  return OFFLINE_CODES.has(code) ? "offline: " : "";
}

/** How the line that ends an outage begins, worded like the outage's first line (see outagePrefix). */
export function recoveryPrefix(code: string | undefined): string {
  if (code === "SERVER_ERROR") return "service available again: ";
  return OFFLINE_CODES.has(code) ? "back online: " : "";
}

/** File-system codes of a full disk (or a spent quota). */
export const DISK_FULL_CODES: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT"]);

/** True when `err` is a write refused for want of space (ENOSPC, EDQUOT). */
export function isDiskFull(err: unknown): boolean {
  return err instanceof Error && DISK_FULL_CODES.has(String(errnoCode(err)));
}

/**
 * A failure as the daemon says it: its stable code and one line. A full disk is named as such,
 * with what waits and what is kept (a raw "ENOSPC: ..., write" names neither).
 */
export function describeFailure(err: unknown, dir: string): { code: string; message: string } {
  if (isDiskFull(err)) {
    return {
      code: "DISK_FULL",
      message: `the disk holding ${dir} is full (${String(errnoCode(err))}): its pushes and pulls wait, since each change is recorded in ${dir}/.mpsync/ before it is made; your edits stay on disk`,
    };
  }
  return { code: errorCode(err), message: describeError(err) };
}
