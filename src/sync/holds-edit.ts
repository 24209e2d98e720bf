/**
 * Does a text hold an edit? An edit is the change from `before` to `sent` (what a PATCH
 * replaced and what it sent); `now` is what the service holds later. Used to tell a version or
 * a concurrent write that dropped the edit (built on `before`) from one built on it
 * (displaced.ts, races.ts).
 */
import { countLines } from "../core/line-count.js";
import { mergeText } from "./merge.js";

/**
 * True when `now` was built on the edit `before` -> `sent`: merging the edit into `now` leaves
 * it unchanged, or at least half of the lines the edit added are still there (a later edit
 * of the same file, even one that rewrote lines next to ours or some of ours, as a web edit of
 * a file we created does). An edit that only removed lines is held while none came back.
 * A text built on `before` shows none of the edit: a race, or a version built before the push.
 */
export function holdsEdit(before: string, sent: string, now: string): boolean {
  if (holdsWhole(before, sent, now)) return true;
  const [b, s, n] = [countLines(before), countLines(sent), countLines(now)];
  let added = 0;
  let kept = 0;
  for (const [line, count] of s) {
    const more = count - (b.get(line) ?? 0);
    if (more <= 0) continue;
    added += more;
    kept += Math.min(more, Math.max(0, (n.get(line) ?? 0) - (b.get(line) ?? 0)));
  }
  if (added > 0) return kept * 2 >= added;
  let removed = 0;
  for (const [line, count] of b) {
    if (count - (s.get(line) ?? 0) <= 0) continue;
    removed += 1;
    if ((n.get(line) ?? 0) > (s.get(line) ?? 0)) return false;
  }
  // An edit of blank lines or whitespace only: the merge above is the only judge.
  return removed > 0;
}

/**
 * True when `now` holds all of the edit `before` -> `sent`: merging the edit into it changes
 * nothing. The judge for a version other than the one the PATCH landed on: whether such a
 * version could have been built on the edit is told by what mpsync saw (other-writers.ts), so
 * any line of the edit it lacks is merged back, never taken for a rewrite.
 */
export function holdsWhole(before: string, sent: string, now: string): boolean {
  if (now === sent) return true;
  const merged = mergeText({ base: before, local: sent, remote: now, remoteLabel: "remote" });
  return merged.clean && merged.text === now;
}
