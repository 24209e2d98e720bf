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
  /** A git command mpsync ran failed (commitOnPull, history export): git's first line says why. */
  | "GIT_FAILED"
  | "NO_ARTIFACT"
  | "UNSAFE_STATE_DIR"
  | "INTERRUPTED"
  /** A running daemon refused or could not answer a control (`mpsync pause`, `resume`). */
  | "DAEMON_REFUSED"
  /** A local path mpsync will not read or write (outside the folder, through a symlink). */
  | "UNSAFE_PATH"
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

/**
 * The stable code of any thrown value: an MpsyncError's code, a system error's (`EACCES`),
 * else `INTERNAL`. The one place a code is read from an unknown error (events, --json).
 */
export function errorCode(err: unknown): string {
  return err instanceof MpsyncError ? err.code : (errnoCode(err) ?? "INTERNAL");
}

/**
 * The code of a Node system error (`ENOENT`, `ECONNREFUSED`...), or of the first error an
 * AggregateError holds (undici's connect to every address of a name); undefined otherwise.
 * The one errno reader: no `(err as NodeJS.ErrnoException).code` elsewhere.
 */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") return code;
  const inner = (err as { errors?: unknown }).errors;
  return Array.isArray(inner) ? errnoCode(inner[0]) : undefined;
}

/** True when `err` is a system error with one of `codes`. */
export function isErrno(err: unknown, ...codes: string[]): boolean {
  const code = errnoCode(err);
  return code !== undefined && codes.includes(code);
}

/**
 * The same failure told about something wider ("web (design abc123): ..."), as Octokit wraps a
 * request failure: the message gains the context; code and hint carry over (exit codes, --json);
 * the error itself stays as `cause`, never changed. `originOf` looks through these.
 */
export class ContextError extends MpsyncError {
  constructor(context: string, cause: MpsyncError) {
    super(cause.code, `${context}: ${cause.message}`, { cause, hint: cause.hint });
    this.name = "ContextError";
  }
}

/** The error a chain of ContextErrors tells about (`err` itself when it is none). */
export function originOf(err: unknown): unknown {
  return err instanceof ContextError ? originOf(err.cause) : err;
}
