/** The events a finished cycle reports (stable names: see events.ts). */
import type { EventSink, SyncEvent } from "./events.js";
import type { ExecuteResult } from "./executor.js";

/** Emits pulled / pushed / conflict events and the notices of one executed cycle. */
export function emitCycleEvents(
  emit: EventSink,
  notice: (message: string) => void,
  origin: Pick<SyncEvent, "dir" | "editorId">,
  r: ExecuteResult,
): void {
  if (r.pulled.length + r.removed.length > 0) {
    const removed = r.removed.length > 0 ? `, removed ${r.removed.length} (backed up)` : "";
    emit({ ...origin, event: "pulled", files: r.pulled, removed: r.removed, message: `pulled ${plural(r.pulled.length, "file")}${removed}` });
  }
  if (r.pushed.length > 0) emit({ ...origin, event: "pushed", files: r.pushed, message: `pushed ${plural(r.pushed.length, "file")}` });
  for (const c of r.conflicts) {
    const how = c.unresolved ? "markers written, resolve and save to push" : `resolved by ${c.policy}`;
    // `path:line:` lets editors (VS Code problem matchers) jump to the first marker.
    const where = c.line === undefined ? c.path : `${c.path}:${c.line}`;
    emit({ ...origin, event: "conflict", files: [c.path], line: c.line, unresolved: c.unresolved, message: `conflict in ${where}: ${how} (both sides in .mpsync/conflicts/)` });
  }
  for (const p of r.refused) {
    const what = p.reason === "too-large" ? `the file ${p.path} as too large (413)` : `the new file ${p.path}`;
    notice(`the service refused ${what}; it will be sent again when its content changes`);
  }
  for (const f of r.failed) {
    emit({ ...origin, event: "error", files: [f.path], code: f.code, message: `cannot write ${f.path} (${f.code}); the rest of the cycle went on, and it is tried again later` });
  }
  for (const p of r.blocked) notice(`cannot write remote file ${p}: a local folder or symlink has that name; rename one of them`);
}

/**
 * Edits the service had acknowledged that a new version replaced without them (displaced.ts):
 * one `conflict` event each, naming the backup and the way back.
 */
export function emitDisplaced(emit: EventSink, origin: Pick<SyncEvent, "dir" | "editorId">, paths: readonly string[], stamp: string): void {
  for (const path of paths) {
    const backup = `.mpsync/backups/${stamp}/${path}`;
    emit({
      ...origin,
      event: "conflict",
      files: [path],
      unresolved: true,
      displaced: true,
      backup,
      message: `conflict in ${path}: the new version was built without your pushed edit, and now holds the file; your edit is in ${backup} (get it back: mpsync restore ${path})`,
    });
  }
}

/** `1 file`, `2 files`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
