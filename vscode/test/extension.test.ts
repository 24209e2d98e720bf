/**
 * The extension in a real VS Code: code-server from npm with the packed .vsix, driven through
 * Debian's Chromium, against the built CLI and the emulator on loopback. The status bar follows
 * the daemon (synced, conflict after a web edit met an unsynced local one, paused after the
 * palette's Pause, synced after Resume), Restore File puts a copy back, Open Preview shows the
 * design in Simple Browser. The README's screenshot is taken here (written to docs/images/ with
 * UPDATE_SCREENSHOTS=1).
 */
import { readFile, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Frame, Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../test/support/browser.js";
import { BIN, REPO, seedDesign, startWorld, type E2eWorld } from "../../test/e2e/helpers.js";
import { copyLabel } from "../src/cli-documents.js";
import { scaffoldFiles } from "../../src/emulator/scaffold.js";
import { codeServerDir, runPaletteCommand, startCodeServer, stopCliRuns, waitForStatus, writeCliShim, type CodeServer } from "./code-server.js";
import { TEST_PREVIEW_CACHE } from "../../test/preview/preview-harness.js";

const APP = (heading: string): string =>
  `import React from "react";\n\nexport function App() {\n  return (\n    <main className="min-h-screen bg-gray-50 p-8">\n      <h1 className="text-3xl font-bold text-gray-900">${heading}</h1>\n      <p className="mt-2 text-gray-600">Edited in VS Code, synced by mpsync.</p>\n    </main>\n  );\n}\n`;

describe("mpsync for VS Code in code-server", () => {
  let world: E2eWorld;
  let editorId: string;
  let server: CodeServer;
  let browser: TestBrowser;
  let page: Page;
  const site = (...p: string[]): string => join(world.cwd, "site", ...p);
  const cliStderr = (): string => readFileSync(join(world.root, "mpsync-stderr.log"), "utf8").slice(-3000);
  const statusJson = async (): Promise<{ designs: { paused?: unknown; daemon?: unknown }[] }> => world.readJson((await world.run(["status", "--json"])).stdout);

  beforeAll(async () => {
    const dir = codeServerDir(REPO);
    world = await startWorld();
    // The scaffold's index.tsx mounts App into the page Open Preview shows.
    editorId = seedDesign(world, { ...Object.fromEntries(scaffoldFiles("Pricing")), "App.tsx": APP("Pricing"), "index.css": "body {}\n" }).editorId;
    // A save waits 3 s before it is pushed: room for a web edit to meet it.
    await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.5, debounceMs: 3000 });
    expect((await world.run(["pull"])).code).toBe(0);
    // The browser suites' package cache: the preview's packages are installed once per run.
    const env = { ...world.env, MPSYNC_PREVIEW_CACHE: TEST_PREVIEW_CACHE };
    // The mpsync.path setting names this program: the built CLI on the test's own Node.
    const shim = await writeCliShim(world.root, process.execPath, BIN);
    server = await startCodeServer({
      dir,
      home: world.root,
      vsix: join(REPO, "dist/mpsync-vscode.vsix"),
      env,
      settings: {
        "mpsync.path": shim,
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": false,
        "workbench.tips.enabled": false,
        "extensions.ignoreRecommendations": true,
        "terminal.integrated.enablePersistentSessions": false,
        "window.commandCenter": false,
        "files.autoSave": "off",
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewportSize({ width: 1360, height: 820 });
    await page.goto(`${server.url}?folder=${encodeURIComponent(world.cwd)}`, { timeout: 180_000, waitUntil: "domcontentloaded" });
    await page.locator("footer .statusbar-item").first().waitFor({ state: "visible", timeout: 120_000 });
  });
  afterAll(async () => {
    await world?.run(["pause"]).catch(() => undefined);
    await browser?.close();
    server?.stop();
    // The watch and mpsync dev the extension started outlive the editor: stopped before the folder goes.
    await stopCliRuns(world.root, BIN);
    await world?.close();
  });

  it("Start Sync runs watch; the status bar follows it: synced, conflict, paused, synced", async () => {
    await waitForStatus(page, "not running");
    await openFile(page, "site/App.tsx");
    await runPaletteCommand(page, "mpsync: Start Sync");
    await waitForStatus(page, "synced");
    expect((await statusJson()).designs[0]?.daemon).toBeDefined();

    // An unsynced local edit of the heading, and a web edit of the same line before it is pushed.
    await writeFile(site("App.tsx"), APP("Pricing (local)"));
    world.emulator.control.editFile(editorId, "App.tsx", APP("Pricing (web)"));
    await waitForStatus(page, "conflict");
    expect(await readFile(site("App.tsx"), "utf8")).toContain("<<<<<<<");
    await page.keyboard.press("Control+Shift+M");
    await page.getByText("mpsync conflict: both sides changed these lines").first().waitFor({ timeout: 30_000 });
    expect((await world.run(["resolve", "site/App.tsx", "--ours"])).code).toBe(0);
    await waitForStatus(page, "synced");

    await runPaletteCommand(page, "mpsync: Pause");
    await waitForStatus(page, "paused");
    expect((await statusJson()).designs[0]?.paused).toBeDefined();
    await runPaletteCommand(page, "mpsync: Resume");
    await waitForStatus(page, "synced");
    expect((await statusJson()).designs[0]?.paused).toBeUndefined();
    const shot = process.env["UPDATE_SCREENSHOTS"] === "1" ? join(REPO, "docs/images/vscode-extension.png") : join(world.root, "vscode-extension.png");
    await page.screenshot({ path: shot });
  });

  it("Restore File... shows the copies, opens the chosen one in a diff, and puts it back", async () => {
    const listed = world.readJson<{ copies: { at?: number; file?: string; reason?: string }[] }>(
      (await world.run(["restore", "App.tsx", "--list", "--json"], { cwd: site() })).stdout,
    );
    const newest = listed.copies.filter((c) => c.at !== undefined && c.file !== undefined).sort((a, b) => b.at! - a.at!)[0];
    expect(newest).toBeDefined();
    const copy = await readFile(newest!.file!, "utf8");
    expect(copy).not.toBe(await readFile(site("App.tsx"), "utf8"));
    await openFile(page, "site/App.tsx");
    await runPaletteCommand(page, "mpsync: Restore File...");
    // The list's first item (newest first), by its index: a virtual list's rows are not in the
    // page in the order they show. Its label says the copies replaced the palette's list.
    const first = page
      .locator('.quick-input-list .monaco-list-row[data-index="0"]')
      .filter({ hasText: copyLabel({ at: newest!.at!, reason: newest!.reason! }) });
    await first.waitFor({ state: "visible" });
    await first.click();
    await page.locator(".monaco-diff-editor").first().waitFor({ state: "visible" });
    await page.getByRole("button", { name: "Put Back", exact: true }).click();
    const anyway = page.getByRole("button", { name: "Put Back Anyway", exact: true });
    // A copy that lacks lines of the last synced version asks once more (restore --force).
    const restored = async (): Promise<boolean> => (await readFile(site("App.tsx"), "utf8")) === copy;
    await Promise.race([anyway.click({ timeout: 15_000 }).catch(() => undefined), until(restored)]);
    await until(restored, () => `App.tsx is not the chosen copy; it holds:\n${readFileSync(site("App.tsx"), "utf8")}\nmpsync's stderr:\n${cliStderr()}`);
  });

  it("Open Preview takes the folder over from the watch and shows the design in Simple Browser, live", async () => {
    await writeFile(site("App.tsx"), APP("Pricing in the preview"));
    await runPaletteCommand(page, "mpsync: Open Preview");
    await page.locator(".tab").filter({ hasText: "Simple Browser" }).first().waitFor({ state: "visible", timeout: 120_000 });
    const frame = await previewFrame(page, server.url, "Pricing in the preview");
    // The watch Start Sync ran handed the folder over: mpsync dev syncs it now.
    expect(JSON.stringify(await statusJson())).toContain('"command":"mpsync dev"');
    // A save reaches the page in the editor.
    await writeFile(site("App.tsx"), APP("Saved beside the preview"));
    await until(
      async () =>
        (await frame
          .locator("h1")
          .first()
          .textContent({ timeout: 1000 })
          .catch(() => null)) === "Saved beside the preview",
      () => "the saved heading never reached the preview",
    );
  });
});

/** The frame, under a webview of code-server at `editorUrl`, whose page shows `heading` (the preview, served by mpsync dev on loopback). */
async function previewFrame(page: Page, editorUrl: string, heading: string): Promise<Frame> {
  const editor = new URL(editorUrl).origin;
  return until(
    async () => {
      for (const frame of page.frames()) {
        if (!frame.url().startsWith("http://127.0.0.1:") || new URL(frame.url()).origin === editor) continue;
        if (
          (await frame
            .locator("h1")
            .first()
            .textContent({ timeout: 1000 })
            .catch(() => null)) === heading
        )
          return frame;
      }
      return undefined;
    },
    () =>
      `no frame shows <h1>${heading}</h1>; frames: ${page
        .frames()
        .map((f) => f.url())
        .join(", ")}`,
  );
}

async function openFile(page: Page, path: string): Promise<void> {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(path);
  await page.locator(".quick-input-list .monaco-list-row").first().waitFor({ state: "visible" });
  await page.keyboard.press("Enter");
  await page
    .locator(`.tab[aria-label^="${path.split("/").at(-1)!}"]`)
    .first()
    .waitFor({ state: "visible" });
}

/** Resolves the first truthy value of `probe`, asked every 100 ms; after `timeoutMs`, fails with `why()`. */
async function until<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  why: () => string = () => "no answer",
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${why()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
