/** One-line descriptions of errors for events, logs and the CLI (never a stack). */
import { MpsyncError } from "../core/errors.js";

/**
 * `what failed: why; what to do` (the hint after a semicolon: a hint in parentheses nested
 * inside a message that has its own read badly).
 */
export function describeError(err: unknown): string {
  if (err instanceof MpsyncError) return err.hint === undefined ? err.message : `${err.message}; ${err.hint}`;
  if (err instanceof Error) return err.message;
  return String(err);
}
