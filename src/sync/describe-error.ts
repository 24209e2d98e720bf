/** One-line descriptions of errors for events, logs and the CLI (never a stack). */
import { MpsyncError } from "../core/errors.js";

/** `what failed: why` plus the hint when there is one. */
export function describeError(err: unknown): string {
  if (err instanceof MpsyncError) return err.hint === undefined ? err.message : `${err.message} (${err.hint})`;
  if (err instanceof Error) return err.message;
  return String(err);
}
