/** The events a finished cycle reports (stable names: see events.ts). */
import type { EventSink, SyncEvent } from "./events.js";
import type { ExecuteResult } from "./executor.js";
import { DISK_FULL_CODES } from "./failure.js";
import type { DisplacedEdit } from "./displaced.js";
import { shownBackupPath } from "../local/recovery-layout.js";
import { quoteLine } from "../core/quote-line.js";

/** Emits pulled / pushed / conflict events and the notices of one executed cycle. */
export function emitCycleEvents(
  emit: EventSink,
  notice: (message: string) => void,
  origin: Pick<SyncEvent, "dir" | "editorId">,
  r: ExecuteResult,
  raced: ReadonlySet<string> = new Set(),
  racedByVersion: ReadonlySet<string> = new Set(),
): void {
  // A clean merge of two writers' changes is the normal path of a team: said with what was
  // pulled (the merge is then pushed), never as a conflict.
  const cleanMerges = r.conflicts.filter((c) => c.policy === "merge" && !c.unresolved && !raced.has(c.path) && !unmarked(c));
  const merged = cleanMerges.map((c) => c.path);
  if (r.pulled.length + r.removed.length + merged.length > 0) {
    const parts = [
      r.pulled.length > 0 ? `pulled ${namedFiles(r.pulled)}` : "",
      merged.length > 0 ? `merged ${namedFiles(merged)} (your edits and the service's, both kept)` : "",
      r.removed.length > 0 ? `removed ${namedFiles(r.removed)} (backed up)` : "",
    ];
    emit({ ...origin, event: "pulled", files: [...r.pulled, ...merged], removed: r.removed, message: parts.filter((p) => p !== "").join("; ") });
  }
  if (r.pushed.length > 0) emit({ ...origin, event: "pushed", files: r.pushed, message: `pushed ${namedFiles(r.pushed)}` });
  for (const c of r.conflicts.filter((x) => !cleanMerges.includes(x))) {
    const how = c.unresolved ? "markers written, resolve and save to push" : `resolved by ${c.policy}`;
    // `path:line:` lets editors (VS Code problem matchers) jump to the first marker.
    const where = c.line === undefined ? c.path : `${c.path}:${c.line}`;
    // A race (races.ts): another writer's PATCH landed over ours; said as such.
    const message = unmarked(c)
      ? // The local file could not take markers (binary, or it still holds markers): it was left
        // as it is and only the service's side was saved; "markers written" would send the user looking.
        `conflict in ${c.path}: your file is kept as it is and not pushed, no markers written; the service's side is in .mpsync/conflicts/ (mpsync resolve ${c.path} --theirs takes it)`
      : !raced.has(c.path)
        ? `conflict in ${where}: ${how} (both sides in .mpsync/conflicts/)`
        : !c.unresolved && c.policy === "merge"
          ? `re-applied your edit to ${c.path}: ${racedByVersion.has(c.path) ? "the new version was built without it" : "another writer replaced it"}, and both edits are now in the file`
          : `conflict in ${where}: ${racedByVersion.has(c.path) ? "the new version was built without your pushed edit" : "another writer replaced your pushed edit"}; ${how}, both sides are in .mpsync/conflicts/`;
    emit({ ...origin, event: "conflict", files: [c.path], line: c.line, unresolved: c.unresolved, ...(raced.has(c.path) ? { reapplied: true } : {}), message });
  }
  // A race whose other writer put back exactly what our PATCH replaced: the edit goes out again
  // as a plain push, with no merge to report; it is said all the same.
  const resolved = new Set(r.conflicts.map((c) => c.path));
  for (const p of r.pushed.filter((x) => raced.has(x) && !resolved.has(x))) {
    const why = racedByVersion.has(p) ? "the new version was built without it" : "another writer replaced it";
    emit({
      ...origin,
      event: "conflict",
      files: [p],
      unresolved: false,
      reapplied: true,
      message: `re-applied your edit to ${p}: ${why}; it is on the service again`,
    });
  }
  for (const p of r.refused) {
    const what = p.reason === "too-large" ? `the file ${p.path} as too large (413)` : `the new file ${p.path}`;
    notice(`the service refused ${what}; it will be sent again when its content changes`);
  }
  // A full disk fails every write alike: one line for all of them, not one per file.
  const full = r.failed.filter((f) => DISK_FULL_CODES.has(f.code));
  if (full.length > 0) {
    const names = `${full
      .slice(0, 3)
      .map((f) => f.path)
      .join(", ")}${full.length > 3 ? `, and ${full.length - 3} more` : ""}`;
    const what = full.length === 1 ? "1 file" : `${full.length} files`;
    emit({
      ...origin,
      event: "error",
      files: full.map((f) => f.path),
      code: "DISK_FULL",
      message: `the disk is full: ${what} could not be written (${names}); they are written once space is freed, and the rest of the cycle went on`,
    });
  }
  for (const f of r.failed.filter((f) => !DISK_FULL_CODES.has(f.code))) {
    emit({
      ...origin,
      event: "error",
      files: [f.path],
      code: f.code,
      message: `cannot write ${f.path} (${f.code}); the rest of the cycle went on, and it is tried again later`,
    });
  }
  for (const p of r.blocked) notice(`cannot write remote file ${p}: a local folder or symlink has that name; rename one of them`);
}

/**
 * Edits the service had acknowledged that a new version replaced without them (displaced.ts):
 * one `conflict` event each, naming what was lost and the backup. The advice never undoes the
 * new version: the lines are copied back by hand (a restore of the backup would revert every
 * other change the version made to the file); a file the version lacks may be restored whole.
 */
export function emitDisplaced(
  emit: EventSink,
  origin: Pick<SyncEvent, "dir" | "editorId">,
  displaced: ReadonlyMap<string, DisplacedEdit>,
  stamp: string,
): void {
  for (const [path, d] of displaced) {
    const backup = shownBackupPath(stamp, path);
    const what =
      d.lost.length === 0
        ? "your pushed edit"
        : `your pushed edit ${quoteLine(d.lost[0]!)}${d.lost.length > 1 ? ` and ${plural(d.lost.length - 1, "more line")}` : ""}`;
    const message = d.removed
      ? `conflict in ${path}: the new version was built without this file you pushed; it was removed here and is kept in ${backup}: bring it back with mpsync restore ${path}`
      : `conflict in ${path}: the new version was built without ${what}; the version's file is kept, and your copy is in ${backup}: copy the lines back to keep them`;
    emit({ ...origin, event: "conflict", files: [path], unresolved: true, displaced: true, backup, lost: d.lost, message });
  }
}

/** An unresolved conflict that wrote no marker into the local file. */
function unmarked(c: { unresolved: boolean; line?: number | undefined }): boolean {
  return c.unresolved && c.line === undefined;
}

/** `1 file`, `2 files`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** How many files a pushed or pulled line names before "and N more". */
export const NAMED_FILES = 3;

/** "App.tsx", "a.ts, b.ts and c.ts", "a.ts, b.ts, c.ts and 4 more": the files a line names. */
export function namedFiles(paths: readonly string[]): string {
  if (paths.length <= NAMED_FILES) return paths.length <= 1 ? (paths[0] ?? "") : `${paths.slice(0, -1).join(", ")} and ${paths[paths.length - 1]!}`;
  return `${paths.slice(0, NAMED_FILES).join(", ")} and ${paths.length - NAMED_FILES} more`;
}
