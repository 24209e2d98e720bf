/**
 * undici times headers and bodies on its own coarse clock (`undici/lib/util/timers.js`: one
 * tick every ~0.5 s), so a 20 ms `headersTimeout` fires after about a second of real time. A
 * test that wants such a timeout advances that clock instead of waiting for it: undici exports
 * `tick()` for its own tests, and one tick fires every headers or body timer of up to ~0.5 s
 * that is running. Longer timers (a 10 s connect) are not moved: a tick nets -1 ms.
 */
import { createRequire } from "node:module";

interface UndiciTimers {
  tick?: (delayMs?: number) => void;
}

/** The timers of the undici instance the client loads (same package path, same module cache). */
const timers = createRequire(import.meta.url)("undici/lib/util/timers.js") as UndiciTimers;

/**
 * Settles like `call`, ticking undici's clock between turns of the event loop until it has:
 * a request the server never answers (or whose body stalls) meets its short timeout at once.
 */
export async function expireUndiciTimeouts<T>(call: Promise<T>): Promise<T> {
  const tick = timers.tick;
  if (typeof tick !== "function") throw new Error("undici/lib/util/timers.js has no tick() any more: see test/support/undici-clock.ts");
  let settled = false;
  const done = call.finally(() => {
    settled = true;
  });
  done.catch(() => undefined);
  while (!settled) {
    tick();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return done;
}
