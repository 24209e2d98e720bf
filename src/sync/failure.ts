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

/**
 * The two outages: `offline`, this machine cannot reach the service (NETWORK, TIMEOUT);
 * `unavailable`, the service answers 5xx (the network is fine: a user is not sent to their
 * wifi). Every line and badge that names an outage takes its words from here.
 */
export type Outage = "offline" | "unavailable";

const OUTAGE_OF_CODE: Readonly<Record<string, Outage>> = { NETWORK: "offline", TIMEOUT: "offline", SERVER_ERROR: "unavailable" };

/** How an outage is named (the terminal's line, the preview's badge), and how its end is. */
export const OUTAGE_WORDS: Readonly<Record<Outage, { name: string; over: string }>> = {
  offline: { name: "offline", over: "back online" },
  unavailable: { name: "service unavailable", over: "the service answers again" },
};

/** Codes of an outage, either kind (said again when it clears; see outagePrefix). */
export const OFFLINE_CODES: ReadonlySet<string | undefined> = new Set(Object.keys(OUTAGE_OF_CODE));

/** The outage a failure's code is, or undefined for any other failure. */
export function outageOf(code: string | undefined): Outage | undefined {
  return code === undefined ? undefined : OUTAGE_OF_CODE[code];
}

/** How an outage's first line begins ("offline: ", "service unavailable: "); "" for any other failure. */
export function outagePrefix(code: string | undefined): string {
  const outage = outageOf(code);
  return outage === undefined ? "" : `${OUTAGE_WORDS[outage].name}: `;
}

/** How the line that ends an outage begins ("back online: ", "the service answers again: "); "" for any other failure. */
export function outageOverPrefix(code: string | undefined): string {
  const outage = outageOf(code);
  return outage === undefined ? "" : `${OUTAGE_WORDS[outage].over}: `;
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
