/**
 * The content check's promise (src/sync/check-scope.ts): every synced path is read by at least
 * one of any CHECK_SWEEP_ROUNDS consecutive content checks, or by a full read between them, so a
 * web edit of a file nobody touched for RECENT_MS still arrives within that many checks. The
 * fake service reports the names each answered files/read asked for; this counts, per path,
 * the content checks that ran since it was last read.
 */
import { CHECK_SWEEP_ROUNDS } from "../../src/sync/check-scope.js";

/** Per synced path: answered content checks since the service last read it for this client. */
export class CheckSweep {
  readonly #since = new Map<string, number>();
  /** Names read since the current check began. */
  readonly #readNow = new Set<string>();

  /** An answered files/read of this client asked for `names` (a full read, a push's, a check's). */
  read(names: readonly string[]): void {
    for (const n of names) {
      this.#since.set(n, 0);
      this.#readNow.add(n);
    }
  }

  /** A content check is about to run. */
  beginCheck(): void {
    this.#readNow.clear();
  }

  /** A content check finished without error; `synced` are the paths with a base afterwards. */
  endCheck(synced: readonly string[]): void {
    const now = new Set(synced);
    for (const p of this.#since.keys()) if (!now.has(p)) this.#since.delete(p);
    for (const p of synced) if (!this.#readNow.has(p)) this.#since.set(p, (this.#since.get(p) ?? 0) + 1);
  }

  /** Synced paths no read reached for CHECK_SWEEP_ROUNDS content checks in a row. */
  violations(synced: readonly string[]): string[] {
    const out: string[] = [];
    for (const p of synced) {
      const n = this.#since.get(p) ?? 0;
      if (n >= CHECK_SWEEP_ROUNDS) out.push(`${p} was read by none of the last ${n} content checks (the sweep owes it one in every ${CHECK_SWEEP_ROUNDS})`);
    }
    return out;
  }
}
