/**
 * The error family's root, at the bottom of the house so every layer can raise and test
 * errors without importing the API client. Every error mpsync raises on purpose is an
 * MpsyncError with a stable `code`; the CLI maps codes to exit codes in one place
 * (src/cli/exit-codes.ts). The API's own error (ApiError) extends it in src/api/errors.ts.
 */

/** Stable error codes. Never rename one: scripts match on them (`--json` output). */
export type ErrorCode =
  | "BAD_REQUEST"
  | "TOO_LARGE"
  | "UNAUTHORIZED"
  | "PAYMENT_REQUIRED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "UNPROCESSABLE"
  | "RATE_LIMITED"
  | "SERVER_ERROR"
  | "NETWORK"
  | "TIMEOUT"
  | "INVALID_RESPONSE"
  | "CONFIG_INVALID"
  | "USAGE"
  | "NO_API_KEY"
  | "GENERATION_BUDGET"
  | "FOLDER_LOCKED"
  | "HALTED"
  | "CONFLICTS"
  | "GENERATING"
  | "GIT_BUSY"
  | "NO_ARTIFACT"
  | "UNSAFE_STATE_DIR"
  | "INTERRUPTED"
  | "INTERNAL";

/** Base of every deliberate error: a one-line message, a stable code, an optional cause. */
export class MpsyncError extends Error {
  readonly code: ErrorCode;
  /** What the user can do about it, printed after the message. */
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MpsyncError";
    this.code = code;
    this.hint = options.hint;
  }
}

/** True when `err` is an MpsyncError with one of `codes`. */
export function hasCode(err: unknown, ...codes: ErrorCode[]): err is MpsyncError {
  return err instanceof MpsyncError && codes.includes(err.code);
}

/** The stable code of any thrown value (`INTERNAL` for one without a code). */
export function errorCode(err: unknown): string {
  return err instanceof Error && "code" in err ? String((err as { code: unknown }).code) : "INTERNAL";
}
