/**
 * Debian's Chromium driven by playwright-core (no browser is ever downloaded). On a machine
 * without it, browser suites register one test that says so in one line (and fails under
 * CI=true, where .ci/run installs it), instead of passing silently.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { it } from "vitest";

/** The browser the tests drive. */
export const CHROMIUM = process.env["MPSYNC_CHROMIUM"] ?? "/usr/bin/chromium";
/** True when it is installed. */
export const HAS_BROWSER = existsSync(CHROMIUM);

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A headless Chromium with a fresh profile. */
export interface TestBrowser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Starts Chromium with a fresh --user-data-dir (removed at close). */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "mpsync-chromium-"));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  return {
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The one test a browser suite has when there is no browser: a line saying so (a failure on CI). */
export function reportNoBrowser(suite: string): void {
  it(`${suite}: needs Chromium at ${CHROMIUM}`, () => {
    const line = `${suite}: not run, no browser at ${CHROMIUM} (apt-get install chromium, or set MPSYNC_CHROMIUM)`;
    if (process.env["CI"] === "true") throw new Error(line);
    console.warn(line);
  });
}
