/**
 * Debian's Chromium driven by playwright-core (no browser is ever downloaded). On a machine
 * without it, browser suites register one test that says so in one line (and fails under
 * CI=true, where .ci/run installs it), instead of passing silently.
 */
import { existsSync } from "node:fs";
import type { Page } from "playwright-core";
import { it } from "vitest";
import { CHROMIUM, launchChromium } from "../../scripts/chromium.mjs";

/** True when it is installed. */
export const HAS_BROWSER = existsSync(CHROMIUM);

/** A headless Chromium with a fresh profile. */
export interface TestBrowser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Starts Chromium (scripts/chromium.mjs: its path and flags) with a fresh --user-data-dir, removed at close. */
export async function launchBrowser(): Promise<TestBrowser> {
  const { context, close } = await launchChromium("mpsync-chromium-");
  return { newPage: () => context.newPage(), close };
}

/** The one test a browser suite has when there is no browser: a line saying so (a failure on CI). */
export function reportNoBrowser(suite: string): void {
  it(`${suite}: needs Chromium at ${CHROMIUM}`, () => {
    const line = `${suite}: not run, no browser at ${CHROMIUM} (apt-get install chromium, or set MPSYNC_CHROMIUM)`;
    if (process.env["CI"] === "true") throw new Error(line);
    console.warn(line);
  });
}
