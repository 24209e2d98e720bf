/**
 * `mpsync dev` end to end: the built CLI against the emulator on loopback, its page in a real
 * headless Chromium. A version made on the service shows once the daemon has pulled it; a save
 * reaches the page through the daemon's change source; a package that cannot be had is one
 * error line while sync goes on; a second `mpsync dev` on the folder is refused before it
 * prints an address, and `status` names the running one. The README's screenshot is taken here
 * (written to docs/images/ with UPDATE_SCREENSHOTS=1).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { spawnJsonLines, type DaemonProcess } from "../daemon/daemon-process.js";
import { HAS_BROWSER, launchBrowser, reportNoBrowser, type TestBrowser } from "../support/browser.js";
import { TEST_PREVIEW_CACHE } from "../preview/preview-harness.js";
import { REPO, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

declare const document: { querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null };

const APP = (heading: string, imports = ""): string =>
  `import React from "react";\n${imports}\nexport function App() {\n  return (\n    <main className="min-h-screen bg-gray-50 p-8">\n      <h1 className="text-3xl font-bold text-gray-900">${heading}</h1>\n      <p className="mt-2 text-gray-600">Edited in VS Code, synced by mpsync, previewed live.</p>\n    </main>\n  );\n}\n`;

if (!HAS_BROWSER) reportNoBrowser("mpsync dev in a browser");
else
  describe("mpsync dev in a browser", () => {
    let world: E2eWorld;
    let browser: TestBrowser;
    let dev: DaemonProcess;
    let editorId: string;
    let page: Page;

    beforeAll(async () => {
      world = await startWorld();
      editorId = seedDesign(world).editorId;
      await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
      expect((await world.run(["pull"])).code).toBe(0);
      browser = await launchBrowser();
      // The browser suite's package cache: React is installed once per run (or not at all).
      dev = spawnJsonLines(world.cwd, { ...world.env, MPSYNC_PREVIEW_CACHE: TEST_PREVIEW_CACHE, MPSYNC_STOP_FLUSH_MS: "3000" }, [
        "dev",
        "site",
        "--json",
        "--port",
        "0",
      ]);
    });
    afterAll(async () => {
      dev?.child.kill("SIGKILL");
      await browser?.close();
      await world?.close();
    });

    it(
      "serves the design, shows a version pulled from the service once it is written, and keeps syncing past a missing package",
      { timeout: 120_000 },
      async () => {
        const served = await dev.waitFor((e) => e["event"] === "notice" && typeof e["url"] === "string");
        await dev.waitFor((e) => e["event"] === "ready");
        // A second dev of the folder: refused before it prints an address; status names the first.
        const second = await world.run(["dev", "site", "--port", "0"]);
        expect(second.code).not.toBe(0);
        expect(second.stdout + second.stderr).not.toContain("preview on");
        expect(second.stderr).toContain('"mpsync dev"');
        const status = await world.run(["status", "site", "--json"]);
        expect(JSON.stringify(JSON.parse(status.stdout))).toContain('"command":"mpsync dev"');
        page = await browser.newPage();
        await page.setViewportSize({ width: 960, height: 540 });
        await page.goto(String(served["url"]));
        await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Seed", undefined, { timeout: 30_000 });
        await page.waitForFunction(() => document.querySelector("mpsync-badge")?.getAttribute("data-state") === "synced");

        // A save in the folder reaches the page through the daemon's change source, and is pushed.
        const saved = dev.events.length;
        await writeFile(join(world.cwd, "site", "App.tsx"), APP("Saved locally"));
        await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Saved locally");
        await dev.waitFor((e) => e["event"] === "pushed", { since: saved });

        // A teammate (or a generation) makes a new version on the service, after the daemon saw
        // the design idle with the push in it (the second status poll after the push was sent
        // after its answer: polls of a design go one at a time). The version rewrites the pushed
        // line on purpose: a decision, pulled with no word (README, "a race or a decision").
        for (let i = 0; i < 2; i++) await world.emulator.control.waitForRequest((e) => e.path.endsWith("/status"), { timeoutMs: 15_000 });
        const files = world.emulator.control.getFiles(editorId);
        const since = dev.events.length;
        world.emulator.control.setFiles(editorId, { ...files, "App.tsx": APP("Pricing, from the service") }, { newArtifact: true });
        await dev.waitFor((e) => e["event"] === "pulled", { since });
        expect(dev.events.slice(since).filter((e) => e["event"] === "conflict")).toEqual([]);
        await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Pricing, from the service");
        const shot = await page.screenshot();
        expect(shot.subarray(1, 4).toString()).toBe("PNG");
        if (process.env["UPDATE_SCREENSHOTS"] === "1") await writeFile(join(REPO, "docs", "images", "dev-preview.png"), shot);

        // A package nobody can install: one error line from the preview; the edit is still pushed.
        const before = dev.events.length;
        await writeFile(join(world.cwd, "site", "App.tsx"), APP("Charts", 'import { LineChart } from "mpsync-absent-package";\nvoid LineChart;'));
        const failed = await dev.waitFor((e) => e["event"] === "error" && e["code"] === "PREVIEW", { since: before });
        expect(String(failed["message"])).toContain('package "mpsync-absent-package" is not available');
        await dev.waitFor((e) => e["event"] === "pushed", { since: before });
        expect(world.emulator.control.getFiles(editorId)["App.tsx"]).toContain("mpsync-absent-package");

        dev.child.kill("SIGINT");
        expect((await dev.exited).code).toBe(0);
      },
    );
  });
