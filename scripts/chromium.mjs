/**
 * Debian's Chromium as mpsync drives it through playwright-core (no browser is ever
 * downloaded): the one home of its path and flags, for the browser tests
 * (test/support/browser.ts) and the preview bench (scripts/bench/preview.mjs). Plain ESM so
 * node runs it as is; its types are chromium.d.mts beside it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The browser: MPSYNC_CHROMIUM, else Debian's. */
export const CHROMIUM = process.env.MPSYNC_CHROMIUM ?? "/usr/bin/chromium";

/** Headless, no sandbox (containers), and nothing that reaches the network on its own. */
export const CHROMIUM_FLAGS = Object.freeze([
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
]);

/** Starts Chromium with a fresh profile in a temp folder named from `prefix`; `close` removes it. */
export async function launchChromium(prefix) {
  const { chromium } = await import("playwright-core");
  const profile = await mkdtemp(join(tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS] });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
