/**
 * Every line a person typed, wherever they typed it: in this folder, in the web editor, in the
 * teammate's folder. Each edit of the model writes lines with a unique token, so a line can be
 * followed across files, versions and writers. A line is `superseded` when a person replaced
 * or removed it knowingly (an editor save over a text holding it, a web edit, a generation
 * built on it, a version picked); any other disappearance is a loss unless a conflict event
 * named its file. This is the invariant that makes remote-side edits count: a
 * teammate's or a web edit's line overwritten by a retried or racing PATCH is lost here.
 */
import type { MemoryContent } from "../support/memory-ports.js";

/** Lines typed by people (user `u`/`new`/`race`/`half`, web `r`/`web`, teammate `m`/`mate`). */
const TYPED = /^(u|h|r|m|new|race|half|web|mate)\d+ (edited|line \d+)$/;

/** Typed lines of a content (none for binary content). */
export function typedLines(content: MemoryContent | undefined): string[] {
  if (typeof content !== "string") return [];
  return content.split(/\r?\n/).filter((l) => TYPED.test(l));
}

/** The typed lines the model tracks: where each was typed, and which were replaced knowingly. */
export class TypedLines {
  /** line -> the path it was typed at. */
  readonly origin = new Map<string, string>();
  readonly superseded = new Set<string>();

  /** A person's write at `rel` replaced `before` with `after`. */
  wrote(rel: string, before: MemoryContent | undefined, after: MemoryContent | undefined): void {
    const kept = new Set(typedLines(after));
    for (const l of typedLines(before)) if (!kept.has(l)) this.superseded.add(l);
    for (const l of kept) if (!this.origin.has(l)) this.origin.set(l, rel);
  }

  /** A new version (or a picked one) replaced `before` (all files) with `after`. */
  replacedVersion(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): void {
    const kept = new Set([...after.values()].flatMap((t) => typedLines(t)));
    for (const text of before.values()) for (const l of typedLines(text)) if (!kept.has(l)) this.superseded.add(l);
  }

  /**
   * Lines neither visible (`seen`: the active version, both folders, both conflict stores) nor
   * superseded nor in a file a conflict event named (`announced`).
   */
  lost(seen: Iterable<MemoryContent | undefined>, announced: (rel: string) => boolean): string[] {
    const visible = new Set<string>();
    for (const c of seen) for (const l of typedLines(c)) visible.add(l);
    const out: string[] = [];
    for (const [line, rel] of this.origin) {
      if (visible.has(line) || this.superseded.has(line) || announced(rel)) continue;
      out.push(`lost line ${JSON.stringify(line)} of ${rel}: not on the service, in either folder or a conflict, and no conflict event named it`);
    }
    return out;
  }
}
