/**
 * How much memory the process keeps after a large pull and while `watch` idles.
 *
 * V8 grows its young generation (two semi-spaces) up to 2 x 16 MiB while a cycle reads or
 * writes thousands of files, and keeps it; the start-up cycle's garbage (file texts, response
 * buffers, the base pack) then sits in the old generation until V8's memory reducer runs, seconds
 * later. Both are measured in BENCHMARKS.md (figures 3 and 4).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * V8 settings for a small footprint, set first thing in the process (src/bin.ts, before the CLI
 * is compiled: V8 keys its code cache by its flags; tests keep V8's defaults). Both flags are read when they apply, so setting them at run time works;
 * `--max-semi-space-size` could only be set on node's command line.
 * - The young generation stays at its initial size (growth factor 1): a large pull peaks
 *   lower in the same time (BENCHMARKS.md, "Figures behind the code's choices").
 * - WebAssembly is compiled by Liftoff only: undici parses HTTP with llhttp compiled to
 *   WebAssembly, and V8's optimizing compile of it alone raises every command's peak RSS
 *   while the pull's time does not move measurably (BENCHMARKS.md, same section).
 */
export function keepMemoryLow(): void {
  for (const flag of ["--semi-space-growth-factor=1", "--liftoff-only"]) {
    try {
      setFlagsFromString(flag);
    } catch {
      // An unknown flag is only a missed saving.
    }
  }
}

/** undefined: not looked up yet; null: not available. */
let collector: (() => void) | null | undefined;

/**
 * V8's full collection, as `node --expose-gc` gives it (the flag set at run time, then read by a
 * new context: the way Jest's leak detector gets it). Null when that fails.
 */
export function fullCollection(): (() => void) | null {
  if (collector === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const gc: unknown = runInNewContext("gc");
      collector = typeof gc === "function" ? (gc as () => void) : null;
      // The function stays; the flag goes back, because V8 keys its code cache by the flags and
      // the CLI's cache is written at exit (src/core/code-cache.ts).
      setFlagsFromString("--no-expose-gc");
    } catch {
      collector = null;
    }
  }
  return collector;
}

/** After the last call, how long the daemon must have been quiet before the collection runs. */
export const SETTLE_DELAY_MS = 1000;

/**
 * Returns `settle()`: one full collection SETTLE_DELAY_MS after the last call (calls in between
 * push it back), on a timer that never keeps the process alive. The daemon calls it after a full
 * sync of a large design (src/daemon/worker-loop.ts): the cycle's garbage is freed at once (a
 * short pause of one core) instead of when V8's memory reducer gets to it, and the collection
 * starts V8's memory reducer, which hands the young generation's pages back soon after.
 */
export function createHeapSettler(collect: (() => void) | null = fullCollection(), delayMs = SETTLE_DELAY_MS): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    if (collect === null) return;
    if (timer !== undefined) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      collect();
    }, delayMs);
    timer.unref();
  };
}
