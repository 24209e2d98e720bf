/** Bounded waits for effects that send no event (a file on disk, a watcher's batch). */

/** Polls `check` every `intervalMs` until it returns true; rejects after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition", intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** For "nothing happened" checks only: resolves true if `cond` stayed false for `ms`. */
export async function staysFalse(cond: () => boolean, ms: number, intervalMs = 10): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (cond()) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return !cond();
}
