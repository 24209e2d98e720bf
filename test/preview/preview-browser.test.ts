/**
 * `mpsync dev`'s preview in a real headless Chromium, on a real temp folder: the scaffold with
 * Tailwind applied, saves shown without a manual reload (CSS in place, components by reload),
 * compile and runtime errors in the overlay and as one terminal line with file:line, a
 * package from the local cache, an unavailable package, and no build while the daemon writes.
 */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { HAS_BROWSER, launchBrowser, reportNoBrowser, type TestBrowser } from "../support/browser.js";
import { until } from "../support/wait.js";
import { packFixture, startPreview, type PreviewWorld } from "./preview-harness.js";

const APP = (body: string, imports = ""): string =>
  `import React from "react";\n${imports}\nexport function App() {\n  return (\n    <main className="min-h-screen bg-gray-50 p-8">\n      ${body}\n    </main>\n  );\n}\n`;

// The page's globals, for the functions run in the browser (this file compiles without the DOM lib).
interface El {
  textContent: string | null;
  hidden: boolean;
  shadowRoot: El | null;
}
declare const document: { querySelector(selector: string): El | null };
declare const window: Record<string, unknown>;
declare function getComputedStyle(el: El): { fontWeight: string; fontSize: string; backgroundColor: string; letterSpacing: string; color: string };

/** The overlay's text ("" when hidden); "" as well while the page reloads. */
const overlayText = (page: Page): Promise<string> =>
  page
    .evaluate(() => {
      const host = document.querySelector("mpsync-overlay");
      return host === null || host.hidden ? "" : (host.shadowRoot?.textContent ?? "");
    })
    .catch(() => "");

if (!HAS_BROWSER) reportNoBrowser("preview in a browser");
else
  // 60 s: the cached-package test runs the real npm twice (pack, then install), which alone took
  // 19 s with the two cores burnt by other work. The others wait on events (a build, a reload).
  describe("preview in a browser", { timeout: 60_000 }, () => {
    let browser: TestBrowser;
    let world: PreviewWorld | undefined;
    let page: Page | undefined;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser.close();
    });
    afterEach(async () => {
      // A page left open keeps reconnecting to its closed preview and takes the browser's time.
      await page?.close();
      page = undefined;
      await world?.close();
      world = undefined;
    });

    async function open(options: Parameters<typeof startPreview>[0] = {}): Promise<{ w: PreviewWorld; page: Page }> {
      world = await startPreview(options);
      page = await browser.newPage();
      await page.goto(world.url);
      await until(() => world!.preview.pages > 0, 10_000, "the page to join the reload channel");
      return { w: world, page };
    }

    it("renders the scaffold: index.tsx mounted into #root, Tailwind classes applied, the sync badge shown", async () => {
      const { w, page } = await open();
      await page.waitForSelector("#root h1");
      const style = await page.evaluate(() => {
        const h1 = document.querySelector("h1")!;
        return {
          text: h1.textContent,
          weight: getComputedStyle(h1).fontWeight,
          size: getComputedStyle(h1).fontSize,
          bg: getComputedStyle(document.querySelector("main")!).backgroundColor,
        };
      });
      expect(style).toEqual({ text: "Preview test", weight: "700", size: "30px", bg: "rgb(249, 250, 251)" });
      expect(await page.locator("mpsync-badge").getAttribute("data-state")).toBe("starting");
      // A 5xx answer: the badge names it as the terminal's line does, not as this machine offline.
      w.preview.syncEvent({ event: "error", code: "SERVER_ERROR", message: "service unavailable: the service answered 503; retrying" });
      // The shadow root holds the badge's style, then its words.
      await page.waitForFunction(() => document.querySelector("mpsync-badge")?.shadowRoot?.textContent?.endsWith("mpsync: service unavailable") === true);
      expect(await page.locator("mpsync-badge").getAttribute("data-state")).toBe("unavailable");
    });

    it("a saved stylesheet applies without a reload; a saved component shows with its new Tailwind class", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      await page.evaluate(() => (window.kept = 42));
      await w.write(
        "index.css",
        "@import 'tailwindcss/base';\n@import 'tailwindcss/components';\n@import 'tailwindcss/utilities';\nh1 { letter-spacing: 3px; }\n",
      );
      await page.waitForFunction(() => getComputedStyle(document.querySelector("h1")!).letterSpacing === "3px");
      expect(await page.evaluate(() => window.kept)).toBe(42);
      await w.write("App.tsx", APP('<h1 className="text-blue-600 underline">Edited</h1>'));
      await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Edited");
      expect(await page.evaluate(() => getComputedStyle(document.querySelector("h1")!).color)).toBe("rgb(37, 99, 235)");
    });

    it("a syntax error shows the overlay and one terminal line with file:line; fixing it clears both", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      await w.write("App.tsx", APP("<h1>Broken</h1>{"));
      await until(async () => (await overlayText(page)).includes("Build failed"), 10_000, "the overlay");
      expect(await overlayText(page)).toContain("App.tsx:");
      await until(() => w.lines.some((l) => l.startsWith("preview: App.tsx:")), 10_000, "the terminal line");
      expect(w.lines.filter((l) => l.startsWith("preview: App.tsx:"))).toHaveLength(1);
      await w.write("App.tsx", APP("<h1>Fixed</h1>"));
      await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Fixed");
      expect(await overlayText(page)).toBe("");
      expect(w.lines.at(-1)).toBe("preview: fixed, page updated");
    });

    it("a runtime error shows the overlay and names the design's file and line in the terminal", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      await w.write(
        "App.tsx",
        `import React from "react";\n\nexport function App() {\n  const items: string[] | undefined = undefined;\n  return <ul>{items!.map((i) => <li key={i}>{i}</li>)}</ul>;\n}\n`,
      );
      await until(async () => (await overlayText(page)).includes("Runtime error"), 10_000, "the runtime overlay");
      await until(
        () => w.lines.some((l) => l.startsWith("preview: runtime error: App.tsx:5:")),
        10_000,
        `a runtime line naming App.tsx:5 (got ${JSON.stringify(w.lines)})`,
      );
    });

    it("renders a design importing a package installed in the local cache", async () => {
      const { w, page } = await open({ files: { "App.tsx": APP('<FixtureBadge label="cached" />', 'import { FixtureBadge } from "mpsync-fixture-badge";') } });
      // The first build could not have it: it is installed from a packed fixture, then saved again.
      await w.cache.ensure("mpsync-fixture-badge", await packFixture(join(w.root, "..", "packed")));
      await w.write("App.tsx", APP('<FixtureBadge label="cached" />\n      <p>again</p>', 'import { FixtureBadge } from "mpsync-fixture-badge";'));
      await page.waitForFunction(() => document.querySelector("[data-testid=fixture-badge]")?.textContent === "badge: cached");
      expect(await overlayText(page)).toBe("");
    });

    it("a package that cannot be had is one clear message in the page and in the terminal", async () => {
      const failing = { install: () => Promise.reject(new Error("npm install left-pad-nope failed: 404 Not Found")) };
      const { w, page } = await open({ installer: failing });
      await page.waitForSelector("h1");
      await w.write("App.tsx", APP("<h1>{pad()}</h1>", 'import pad from "left-pad-nope";'));
      await until(async () => (await overlayText(page)).includes('package "left-pad-nope" is not available'), 10_000, "the overlay");
      expect(w.lines.filter((l) => l.includes('package "left-pad-nope" is not available'))).toHaveLength(1);
    });

    it("while the daemon writes a version, nothing is built; the page reloads once it is all written", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      const builds = w.preview.builds;
      w.preview.writing();
      // Half a version: App.tsx needs a file not written yet. A build now would fail.
      await w.write("App.tsx", APP("<Title />", 'import { Title } from "./Title";'));
      await until(() => w.preview.changesSeen > 0, 10_000, "the watcher to see the write");
      await w.write("Title.tsx", 'export function Title() {\n  return <h1 className="font-bold">Pulled version</h1>;\n}\n');
      w.preview.settled();
      await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Pulled version");
      expect(w.lines).toEqual([]);
      expect(w.preview.builds).toBeGreaterThan(builds);
    });
  });
