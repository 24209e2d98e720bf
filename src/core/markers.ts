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

/** The end-marker line for `label` ("remote v7" or "v7" both give `>>>>>>> remote v7`). */
export function formatRemoteMarker(label: string): string {
  // A newline in the label would split the marker line and hide the block from editors.
  const clean = label.replace(/[\r\n]+/g, " ").trim();
  if (clean === "" || clean === "remote") return MARKER_REMOTE_PREFIX;
  if (/^remote\b/.test(clean)) return `>>>>>>> ${clean}`;
  return `${MARKER_REMOTE_PREFIX} ${clean}`;
}
