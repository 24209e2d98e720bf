/**
 * How much memory the process keeps after a large pull and while `watch` idles.
 *
 * V8 grows its young generation (two semi-spaces) up to 2 x 16 MiB while a cycle reads or
 * writes thousands of files, and keeps it; the start-up cycle's garbage (file texts, response
 * buffers, the base pack) then sits in the old generation until V8's memory reducer runs, seconds
 * later. Both are measured in BENCHMARKS.md (figures 3 and 4).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * V8 settings for a small footprint, each with the value that puts V8's default back (the same
 * in the V8 of Node 20, 22 and 24; heap.test.ts checks them against `node --v8-options`). V8
 * reads these when they apply, so setting them at run time works (`--max-semi-space-size`
 * could only be set on node's command line).
 * - The young generation stays at its initial size (growth factor 1): a large pull peaks
 *   lower in the same time (BENCHMARKS.md, "Figures behind the code's choices").
 * - WebAssembly stays in Liftoff, V8's baseline compiler: undici parses HTTP with llhttp
 *   compiled to WebAssembly, and V8's optimizing compile of its parse function (TurboFan, on a
 *   background thread) raises every command's CPU time and peak RSS while a pull's time does
 *   not move measurably (BENCHMARKS.md, same section). A tier-up filter that names no function
 *   stops it on Node 20, 22 and 24; `--liftoff-only` set at run time does not on Node 24, and it
 *   implies other flags that setting it back leaves changed.
 */
export const MEMORY_FLAGS: readonly { set: string; reset: string }[] = [
  { set: "--semi-space-growth-factor=1", reset: "--semi-space-growth-factor=2" },
  { set: "--wasm-tier-up-filter=2147483647", reset: "--wasm-tier-up-filter=-1" },
];

function setFlags(flags: readonly string[]): void {
  for (const flag of flags) {
    try {
      setFlagsFromString(flag);
    } catch {
      // An unknown flag is only a missed saving.
    }
  }
}

/** Sets MEMORY_FLAGS for the rest of the process (until restoreV8Defaults). */
export function keepMemoryLow(): void {
  setFlags(MEMORY_FLAGS.map((f) => f.set));
}

/**
 * Puts V8's defaults back for MEMORY_FLAGS. V8 keys every code cache by its flags: the CLI's
 * cache, written when the process exits (src/core/code-cache.ts, or Node's compile cache), must
 * be keyed as the next start finds V8, with its defaults.
 */
export function restoreV8Defaults(): void {
  setFlags(MEMORY_FLAGS.map((f) => f.reset));
}

/** undici's diagnostics channel (documented) for a connection about to be opened. */
const BEFORE_CONNECT = "undici:client:beforeConnect";

/**
 * Sets MEMORY_FLAGS when the process opens its first connection (undici's `beforeConnect`),
 * not at start: Node's built-in modules carry a code cache made with V8's default flags, and a
 * built-in loaded after a flag has changed is compiled from its source instead (undici's entry
 * loads many, and Node's own copy of undici through `globalThis.Headers`). By the first
 * connection they are loaded, except `node:tls` for an https address, which is loaded here
 * first. The llhttp WebAssembly is compiled after this, on the connection.
 */
export function keepMemoryLowFromFirstConnection(): void {
  const onConnect = (message: unknown): void => {
    unsubscribe(BEFORE_CONNECT, onConnect);
    const protocol = (message as { connectParams?: { protocol?: unknown } } | undefined)?.connectParams?.protocol;
    if (protocol === "https:") process.getBuiltinModule("node:tls");
    keepMemoryLow();
  };
  subscribe(BEFORE_CONNECT, onConnect);
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
