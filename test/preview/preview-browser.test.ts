/**
 * `mpsync dev`'s preview in a real headless Chromium, on a real temp folder, rendered by Vite:
 * the scaffold with Tailwind applied, a component save that keeps the page's state (Fast
 * Refresh, no page load), a stylesheet swapped in place, compile and runtime errors in the
 * overlay and as one terminal line with file:line, a package not in package.json, no build
 * while the daemon writes, and the badge through a conflict resolved and a pause.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Page } from "playwright-core";
import { HAS_BROWSER, launchBrowser, reportNoBrowser, type TestBrowser } from "../support/browser.js";
import { until } from "../support/wait.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NpmInstaller } from "../../src/preview/package-installer.js";
import { PreviewFront } from "../../src/preview/preview-front.js";
import { quietNpmEnv, startPreview, type PreviewWorld } from "./preview-harness.js";

const APP = (body: string, imports = ""): string =>
  `import React from "react";\n${imports}\nexport function App() {\n  return (\n    <main className="min-h-screen bg-gray-50 p-8">\n      ${body}\n    </main>\n  );\n}\n`;

/**
 * A design's own package.json: lodash 3 (the newest is 4: `_.VERSION` tells which rendered),
 * use-sync-external-store's shim (CommonJS that requires React), tailwindcss-animate. Small,
 * so the first run's install from the registry stays short.
 */
const DESIGN_MANIFEST = JSON.stringify({
  dependencies: { react: "18.3.1", "react-dom": "18.3.1", lodash: "3.10.1", "use-sync-external-store": "1.2.0", "tailwindcss-animate": "1.0.7" },
});

const COUNTER = (label: string): string =>
  `import React, { useState } from "react";\n\nexport function App() {\n  const [n, setN] = useState(0);\n  return (\n    <main className="p-8">\n      <h1 className="text-3xl font-bold">${label}</h1>\n      <button id="count" onClick={() => setN(n + 1)}>{n}</button>\n    </main>\n  );\n}\n`;

// The page's globals, for the functions run in the browser (this file compiles without the DOM lib).
interface El {
  textContent: string | null;
  hidden: boolean;
  shadowRoot: El | null;
}
declare const document: { querySelector(selector: string): El | null };
declare const window: Record<string, unknown>;
declare function getComputedStyle(el: El): { fontWeight: string; fontSize: string; backgroundColor: string; letterSpacing: string; color: string };

/** The text of Vite's error overlay ("" when there is none). */
const overlayText = (page: Page): Promise<string> =>
  page.evaluate(() => document.querySelector("vite-error-overlay")?.shadowRoot?.textContent ?? "").catch(() => "");

const badgeState = (page: Page): Promise<string | null> => page.locator("mpsync-badge").getAttribute("data-state");

if (!HAS_BROWSER) reportNoBrowser("preview in a browser");
else
  // 90 s: a first run installs React into the shared test cache from the registry, and Vite
  // pre-bundles it, on two cores shared with other work. The rest waits on events.
  describe("preview in a browser", { timeout: 90_000 }, () => {
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
      await page?.close();
      page = undefined;
      await world?.close();
      world = undefined;
    });

    async function open(options: Parameters<typeof startPreview>[0] = {}): Promise<{ w: PreviewWorld; page: Page }> {
      world = await startPreview(options);
      expect(world.lines.filter((l) => l.startsWith("preview unavailable"))).toEqual([]);
      page = await browser.newPage();
      await page.goto(world.url);
      return { w: world, page };
    }

    it("renders the scaffold: index.tsx mounted into #root, Tailwind classes applied, the sync badge shown, no 404", async () => {
      world = await startPreview();
      page = await browser.newPage();
      const missing: string[] = [];
      page.on("response", (r) => void (r.status() >= 400 && missing.push(`${r.status()} ${r.url()}`)));
      await page.goto(world.url);
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
      await until(async () => (await badgeState(page!)) === "starting", 10_000, "the badge");
      world.preview.syncEvent({ event: "error", code: "SERVER_ERROR", message: "service unavailable: the service answered 503; retrying" });
      await page.waitForFunction(() => document.querySelector("mpsync-badge")?.shadowRoot?.textContent?.endsWith("mpsync: service unavailable") === true);
      expect(missing).toEqual([]);
    });

    it("a saved component keeps the page's state (Fast Refresh, no page load); a saved stylesheet applies in place", async () => {
      const { w, page } = await open({ files: { "App.tsx": COUNTER("Counter") } });
      await page.waitForSelector("#count");
      await page.click("#count");
      await page.click("#count");
      await page.evaluate(() => (window["kept"] = 42));
      await w.write("App.tsx", COUNTER("Counter, edited"));
      await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Counter, edited");
      expect(await page.textContent("#count")).toBe("2");
      expect(await page.evaluate(() => window["kept"])).toBe(42);
      await w.write(
        "index.css",
        "@import 'tailwindcss/base';\n@import 'tailwindcss/components';\n@import 'tailwindcss/utilities';\nh1 { letter-spacing: 3px; }\n",
      );
      await page.waitForFunction(() => getComputedStyle(document.querySelector("h1")!).letterSpacing === "3px");
      expect(await page.evaluate(() => window["kept"])).toBe(42);
    });

    it("a syntax error shows the overlay and one terminal line with file:line; fixing it clears the overlay", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      await w.write("App.tsx", APP("<h1>Broken</h1>{"));
      await until(async () => (await overlayText(page)).includes("App.tsx"), 20_000, "the overlay");
      await until(() => w.lines.some((l) => /^preview: App\.tsx:\d+:\d+: /.test(l)), 10_000, `the terminal line (got ${JSON.stringify(w.lines)})`);
      expect(w.lines.filter((l) => l.startsWith("preview: App.tsx:"))).toHaveLength(1);
      await w.write("App.tsx", APP("<h1>Fixed</h1>"));
      await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Fixed");
      await until(async () => (await overlayText(page)) === "", 10_000, "the overlay to go");
    });

    it("a runtime error's overlay and its one terminal line name the design's file and line", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      await w.write(
        "App.tsx",
        `import React from "react";\n\nexport function App() {\n  const items: string[] | undefined = undefined;\n  return <ul>{items!.map((i) => <li key={i}>{i}</li>)}</ul>;\n}\n`,
      );
      await until(async () => /App\.tsx:5/.test(await overlayText(page)), 20_000, "the runtime overlay naming App.tsx:5");
      await until(
        () => w.lines.some((l) => l.startsWith("preview: runtime error: App.tsx:5:")),
        10_000,
        `a runtime line naming App.tsx:5 (got ${JSON.stringify(w.lines)})`,
      );
      expect(w.lines.filter((l) => l.startsWith("preview: runtime error:"))).toHaveLength(1);
    });

    it("a design's package.json is honoured: an old major it pins, a CommonJS package requiring React, a Tailwind plugin its config requires", async () => {
      const { w, page } = await open({
        files: {
          "package.json": DESIGN_MANIFEST,
          "tailwind.config.js": 'module.exports = {\n  content: ["./**/*.tsx"],\n  plugins: [require("tailwindcss-animate")],\n};\n',
          "App.tsx": APP(
            '<h1 className="animate-in fade-in">lodash {_.VERSION}</h1>\n      <Clock />',
            'import _ from "lodash";\nimport { useSyncExternalStore } from "use-sync-external-store/shim";\nconst store = { get: () => "shim works", on: () => () => undefined };\nfunction Clock() {\n  return <p id="shim">{useSyncExternalStore(store.on, store.get)}</p>;\n}',
          ),
        },
      });
      await page.waitForSelector("#shim");
      expect(await page.textContent("h1")).toBe("lodash 3.10.1");
      expect(await page.textContent("#shim")).toBe("shim works");
      expect(await page.evaluate(() => (getComputedStyle(document.querySelector("h1")!) as unknown as { animationName: string }).animationName)).toBe("enter");
      expect(w.lines.filter((l) => !l.startsWith("preview: installing") && !l.startsWith("preview: still") && !l.startsWith("preview: ready"))).toEqual([]);
    });

    it("a package the design's package.json does not name is one line in the terminal and the page", async () => {
      const manifest = JSON.stringify({ dependencies: { react: "18.3.1", "react-dom": "18.3.1" } });
      const { w, page } = await open({ files: { "package.json": manifest } });
      await page.waitForSelector("h1");
      await w.write("App.tsx", APP("<h1>{pad()}</h1>", 'import pad from "left-pad-nope";'));
      await until(async () => (await overlayText(page)).includes('package "left-pad-nope" is not available'), 20_000, "the overlay");
      expect(w.lines.filter((l) => l.includes('package "left-pad-nope" is not available'))).toHaveLength(1);
    });

    it("no registry: one line says why, and the page says the preview is unavailable and why", async () => {
      const offline = new NpmInstaller({
        env: { ...quietNpmEnv(), npm_config_registry: "http://127.0.0.1:9/", npm_config_cache: join(tmpdir(), "mpsync-empty-npm-cache") },
      });
      const cacheDir = await mkdtemp(join(tmpdir(), "mpsync-nocache-"));
      onTestFinished(() => rm(cacheDir, { recursive: true, force: true }));
      world = await startPreview({ installer: offline, cacheDir });
      expect(world.preview.ready).toBe(false);
      const said = world.lines.filter((l) => l.startsWith("preview unavailable"));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/npm install failed: .*(ECONNREFUSED|127\.0\.0\.1:9).*\(sync goes on\)$/);
      page = await browser.newPage();
      await page.goto(world.url);
      expect(await page.textContent("[data-mpsync-status=unavailable]")).toContain("npm install failed");
    });

    it("a page opened while the preview prepares shows the design as soon as it is served, not at the status page's next reload", async () => {
      // The status page's own reload is an hour away: only its question to the front can bring the design.
      const front = new PreviewFront({ refreshSec: 3600 });
      onTestFinished(() => front.close());
      const port = await front.listen(0);
      front.status({ phase: "preparing", message: "installing the design's packages (1 s)" });
      page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${port}/`);
      expect(await page.textContent("[data-mpsync-status=preparing]")).toContain("installing the design's packages");
      front.attach((req, res, next) => {
        if (req.url !== "/") return next();
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end("<!doctype html><title>design</title><h1>The design</h1>");
      });
      await page.waitForFunction(() => document.querySelector("h1")?.textContent === "The design");
    });

    it("while the daemon writes a version, nothing is shown; the page loads once it is all written", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      await page.evaluate(() => (window["kept"] = 1));
      w.preview.writing();
      // Half a version: App.tsx needs a file not written yet. Shown now, it would fail.
      await w.write("App.tsx", APP("<Title />", 'import { Title } from "./Title";'));
      await w.write("Title.tsx", 'export function Title() {\n  return <h1 className="font-bold">Pulled version</h1>;\n}\n');
      expect(await overlayText(page)).toBe("");
      w.preview.settled();
      await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Pulled version");
      expect(await page.evaluate(() => window["kept"])).toBeUndefined();
      expect(w.lines).toEqual([]);
    });

    it("the badge: a conflict stays until its file is saved without markers (mpsync resolve), and a pause shows", async () => {
      const { w, page } = await open();
      await page.waitForSelector("h1");
      w.preview.syncEvent({ event: "ready", message: "" });
      await until(async () => (await badgeState(page)) === "synced", 10_000, "synced");
      await w.write("App.tsx", "<<<<<<< local\nexport const a = 1;\n=======\nexport const a = 2;\n>>>>>>> remote\n");
      w.preview.syncEvent({ event: "conflict", message: "conflict in App.tsx", files: ["App.tsx"], unresolved: true });
      await until(async () => (await badgeState(page)) === "conflict", 10_000, "conflict");
      await w.write("other.txt", "an unrelated save\n");
      expect(await badgeState(page)).toBe("conflict");
      await w.write("App.tsx", APP("<h1>Theirs</h1>"));
      w.preview.settled();
      await until(async () => (await badgeState(page)) === "synced", 10_000, "synced after resolve");
      w.preview.syncEvent({ event: "notice", code: "PAUSED", message: "paused: local and remote changes wait until mpsync resume" });
      await until(async () => (await badgeState(page)) === "paused", 10_000, "paused");
      await w.write("App.tsx", APP("<h1>Saved while paused</h1>"));
      expect(await badgeState(page)).toBe("paused");
    });
  });
