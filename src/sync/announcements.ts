/**
 * What a folder's sync has already announced to the user, so a state that lasts is announced
 * when it begins and when it ends, never once per cycle (a missing folder must not print
 * `halted` every cycle, nor a path that cannot be written an error every retry).
 */
import type { ExecuteResult } from "./executor.js";

/** A path whose write failed, as the executor reports it. */
export type FailedWrite = ExecuteResult["failed"][number];

/** Per-folder memory of the halt, the path failures and the local deletions last announced. */
export class Announcements {
  #halt: string | undefined;
  readonly #failed = new Map<string, string>();
  /** Local deletions announced, until the file is seen again. */
  readonly #deleted = new Set<string>();

  /** True when `why` is a halt not announced yet (a new halt, or another reason). */
  newHalt(why: string): boolean {
    if (this.#halt === why) return false;
    this.#halt = why;
    return true;
  }

  /** The halt ended: the next one is announced again. */
  haltEnded(): void {
    this.#halt = undefined;
  }

  /**
   * The failures of one cycle not announced yet (a new path, or a new code for it), and the
   * paths announced before that have now been written (their failure is over).
   */
  writeFailures(result: Pick<ExecuteResult, "failed" | "pulled" | "removed" | "conflicts">): { fresh: FailedWrite[]; cleared: string[] } {
    const fresh = result.failed.filter((f) => this.#failed.get(f.path) !== f.code);
    for (const f of fresh) this.#failed.set(f.path, f.code);
    const written = [...result.pulled, ...result.removed, ...result.conflicts.map((c) => c.path)];
    const cleared = written.filter((p) => this.#failed.delete(p));
    return { fresh, cleared };
  }

  /** Of the local deletions a cycle found, those not announced yet (each once, until its file comes back). */
  newDeletions(found: readonly string[]): string[] {
    const fresh = found.filter((p) => !this.#deleted.has(p));
    for (const p of fresh) this.#deleted.add(p);
    return fresh;
  }

  /** The deletions announced so far (a cycle that does not find one again asks whether it came back). */
  announcedDeletions(): string[] {
    return [...this.#deleted];
  }

  /** `path` is there again (restored, pulled, saved): a later deletion is announced again. */
  fileReturned(path: string): void {
    this.#deleted.delete(path);
  }
}
