/** The git-style conflict markers mpsync writes (VS Code shows its merge buttons for these). */

/** Start of the local side. */
export const MARKER_LOCAL = "<<<<<<< local";
/** Start of the common ancestor (diff3 style). */
export const MARKER_BASE = "||||||| base";
/** Separator before the remote side. */
export const MARKER_SEPARATOR = "=======";
/** End marker prefix; followed by ` remote vN` (or ` remote`). */
export const MARKER_REMOTE_PREFIX = ">>>>>>> remote";

const START_RE = /^<<<<<<< local\s*$/m;
const END_RE = /^>>>>>>> remote\b.*$/m;

/** True when `text` still holds a conflict block written by mpsync (so it must not be pushed). */
export function hasConflictMarkers(text: string): boolean {
  return START_RE.test(text) && END_RE.test(text);
}
