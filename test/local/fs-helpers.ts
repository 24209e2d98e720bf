/** Temp folders and bounded waits shared by the local, state and watch suites. */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temp folder (realpath'd: macOS's /var is a symlink) and its cleanup. */
export async function makeTempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), `mpsync-${prefix}-`)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Polls `cond` until true; rejects after `timeoutMs`. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs = 5_000, intervalMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
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
