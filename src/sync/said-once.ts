/**
 * What a folder's sync has already told the user, so a state that lasts is said once when it
 * begins and once when it ends, never once per cycle (a missing folder must not print
 * `halted` every cycle, nor a path that cannot be written an error every retry).
 */
import type { ExecuteResult } from "./executor.js";

/** A path whose write failed, as the executor reports it. */
export type FailedWrite = ExecuteResult["failed"][number];

/** Per-folder memory of the halt and the path failures last said. */
export class SaidOnce {
  #halt: string | undefined;
  readonly #failed = new Map<string, string>();
  /** Local deletions said, until the file is seen again. */
  readonly #deleted = new Set<string>();

  /** True when `why` is a halt not said yet (a new halt, or another reason). */
  halt(why: string): boolean {
    if (this.#halt === why) return false;
    this.#halt = why;
    return true;
  }

  /** The halt ended: the next one is said again. */
  haltCleared(): void {
    this.#halt = undefined;
  }

  /**
   * The failures of one cycle that were not said yet (a new path, or a new code for it), and
   * the paths said before that have now been written (their failure is over).
   */
  failures(result: Pick<ExecuteResult, "failed" | "pulled" | "removed" | "conflicts">): { fresh: FailedWrite[]; cleared: string[] } {
    const fresh = result.failed.filter((f) => this.#failed.get(f.path) !== f.code);
    for (const f of fresh) this.#failed.set(f.path, f.code);
    const written = [...result.pulled, ...result.removed, ...result.conflicts.map((c) => c.path)];
    const cleared = written.filter((p) => this.#failed.delete(p));
    return { fresh, cleared };
  }

  /** Of the local deletions a cycle found, those not said yet (each is said once, until its file comes back). */
  deletions(found: readonly string[]): string[] {
    const fresh = found.filter((p) => !this.#deleted.has(p));
    for (const p of fresh) this.#deleted.add(p);
    return fresh;
  }

  /** The deletions said so far (a cycle that does not find one again asks whether it came back). */
  saidDeletions(): string[] {
    return [...this.#deleted];
  }

  /** `path` is there again (restored, pulled, saved): a later deletion is said again. */
  fileBack(path: string): void {
    this.#deleted.delete(path);
  }
}
