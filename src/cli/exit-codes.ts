/** The one place error codes become process exit codes (README, "Commands": exit codes). */
import { MpsyncError, type ErrorCode } from "../core/errors.js";

/** Exit codes. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  credits: 4,
  conflicts: 5,
} as const;

const BY_CODE: Partial<Record<ErrorCode, number>> = {
  USAGE: EXIT.usage,
  CONFIG_INVALID: EXIT.usage,
  UNAUTHORIZED: EXIT.auth,
  FORBIDDEN: EXIT.auth,
  NO_API_KEY: EXIT.auth,
  PAYMENT_REQUIRED: EXIT.credits,
  CONFLICTS: EXIT.conflicts,
};

/** Exit code for an error thrown by a command. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof MpsyncError) return BY_CODE[err.code] ?? EXIT.failure;
  return EXIT.failure;
}
