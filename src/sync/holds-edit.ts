/**
 * Does a text hold an edit? An edit is the change from `before` to `sent` (what a PATCH
 * replaced and what it sent); `now` is what the service holds later. Used to tell a version or
 * a concurrent write that dropped the edit from one built on it (displaced.ts, base-ledger.ts).
 */
import { countLines } from "../core/line-count.js";
import { mergeText } from "./merge.js";

/**
 * True when `now` already holds the edit `before` -> `sent`: merging the edit into `now` leaves
 * it unchanged, or (when diff3 sees overlapping hunks, as for a version that rewrote lines next
 * to the edit) every line the edit added is still there and no line it removed came back.
 */
export function holdsEdit(before: string, sent: string, now: string): boolean {
  if (now === sent) return true;
  const merged = mergeText({ base: before, local: sent, remote: now, remoteLabel: "remote" });
  if (merged.clean && merged.text === now) return true;
  const [b, s, n] = [countLines(before), countLines(sent), countLines(now)];
  let changed = false;
  for (const [line, count] of s) {
    const added = count - (b.get(line) ?? 0);
    if (added <= 0) continue;
    changed = true;
    if ((n.get(line) ?? 0) < count) return false;
  }
  for (const [line, count] of b) {
    const removed = count - (s.get(line) ?? 0);
    if (removed <= 0) continue;
    changed = true;
    if ((n.get(line) ?? 0) > (s.get(line) ?? 0)) return false;
  }
  // An edit of blank lines or whitespace only: the merge above is the only judge.
  return changed;
}
