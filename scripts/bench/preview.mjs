/**
 * `mpsync dev`'s figures, in Debian's Chromium (playwright-core, headless): cold start of the
 * built CLI on the blank scaffold to the first paint of its heading (caches warm: a first
 * start runs before the timed ones), and save to screen of a stylesheet (applied in place) and
 * of a component (a reload), medians of `saves` saves each. "On screen" is the first animation
 * frame in which the page shows the change, stamped with the page's clock
 * (performance.timeOrigin + now(), the same wall clock as this process's Date.now()).
 *
 *   node scripts/bench/preview.mjs [--saves 20] [--starts 5]
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launchChromium } from "../chromium.mjs";
import { BENCH_KEY, makeHome, spawnCli } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

const CSS = (px) => `@import 'tailwindcss/base';\n@import 'tailwindcss/components';\n@import 'tailwindcss/utilities';\nh1 { letter-spacing: ${px}px; }\n`;
const APP = (text) =>
  `import React from "react";\n\nexport function App() {\n  return (\n    <main className="min-h-screen bg-gray-50 p-8">\n      <h1 className="text-3xl font-bold text-gray-900">${text}</h1>\n    </main>\n  );\n}\n`;

/* global document, getComputedStyle, window, requestAnimationFrame -- WATCH_PAGE runs in the page */
/** Reports each new heading text and letter spacing, from every page load, at the frame it shows. */
const WATCH_PAGE = () => {
  let last = "";
  const frame = () => {
    const h1 = document.querySelector("h1");
    if (h1 !== null) {
      const seen = `${h1.textContent}|${getComputedStyle(h1).letterSpacing}`;
      if (seen !== last) {
        last = seen;
        window.benchSeen(seen, performance.timeOrigin + performance.now());
      }
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
};

/** Runs the preview figures; undefined (with a line saying why) without a browser. */
export async function benchPreview(emu, { saves, starts, log }) {
  if (!existsSync(CHROMIUM)) {
    log(`preview: not measured, no browser at ${CHROMIUM}`);
    return undefined;
  }
  const { editorId } = emu.control.createDesign(BENCH_KEY, { name: "Bench" });
  const home = await makeHome(emu.baseUrl, editorId);
  const { context, close: closeBrowser } = await launchChromium("mpsync-bench-chromium-");
  const env = { ...home.env, HOME: home.home, MPSYNC_PREVIEW_CACHE: join(home.home, ".preview-cache") };
  const waiters = [];
  let lastSeen = "";
  const seen = (text, at) => {
    lastSeen = text;
    for (const w of [...waiters]) {
      if (!w.match(text)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(at);
    }
  };
  const next = (match) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`preview bench: the page did not show the change within 20 s (last seen: ${lastSeen})`)), 20_000);
      waiters.push({ match, resolve: (at) => (clearTimeout(timer), resolve(at)) });
    });
  await context.exposeBinding("benchSeen", (_source, text, at) => seen(text, at));
  await context.addInitScript(WATCH_PAGE);
  try {
    const coldMs = [];
    let page;
    let dev;
    for (let i = 0; i <= starts; i++) {
      dev?.child.kill("SIGINT");
      await dev?.exited;
      await page?.close();
      const started = Date.now();
      dev = await spawnCli(["dev", "--port", "0"], { cwd: home.home, env });
      await dev.waitForOutput(/preview on (http:\S+)/, 30_000);
      const url = /preview on (http:\S+)/.exec(dev.stdout())[1];
      page = await context.newPage();
      if (process.env.BENCH_DEBUG) page.on("request", (r) => process.stderr.write(`req ${r.url()}\n`));
      const painted = next((t) => t.startsWith("Bench|"));
      await page.goto(url);
      const at = await painted;
      if (i > 0) coldMs.push(at - started); // the first start warms the caches
    }
    const css = [];
    for (let i = 1; i <= saves; i++) {
      const shown = next((t) => t.endsWith(`|${i}px`));
      const t0 = Date.now();
      await writeFile(join(home.root, "index.css"), CSS(i));
      css.push((await shown) - t0);
    }
    const component = [];
    for (let i = 1; i <= saves; i++) {
      const shown = next((t) => t.startsWith(`Save ${i}|`));
      const t0 = Date.now();
      await writeFile(join(home.root, "App.tsx"), APP(`Save ${i}`));
      component.push((await shown) - t0);
    }
    dev.child.kill("SIGINT");
    await dev.exited;
    const result = { coldStartMs: summarize(coldMs), cssSaveMs: summarize(css), componentSaveMs: summarize(component) };
    log(
      `preview: cold start ${Math.round(result.coldStartMs.median)} ms, CSS save to screen ${Math.round(result.cssSaveMs.median)} ms, component ${Math.round(result.componentSaveMs.median)} ms (medians)`,
    );
    return result;
  } finally {
    await closeBrowser();
    await home.remove();
  }
}

/** Rows of the preview table: figure, target, median, p90, max. */
export function previewRows(r) {
  const row = (name, target, s) => [name, target, `${Math.round(s.median)} ms`, `${Math.round(s.p90)} ms`, `${Math.round(s.max)} ms`, `${s.n}`];
  return [
    row("save to screen, stylesheet (in place)", "<= 100 ms", r.cssSaveMs),
    row("save to screen, component (reload)", "<= 300 ms", r.componentSaveMs),
    row("cold start to first paint (warm cache)", "<= 3000 ms", r.coldStartMs),
  ];
}

/** Header of the preview table. */
export const PREVIEW_HEADER = ["figure", "target", "median", "p90", "max", "n"];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { saves: { type: "string", default: "20" }, starts: { type: "string", default: "5" } } });
  const { startBenchEmulator } = await import("./fixture.mjs");
  const emu = await startBenchEmulator();
  try {
    const r = await benchPreview(emu, { saves: Number(values.saves), starts: Number(values.starts), log: (l) => process.stderr.write(`${l}\n`) });
    if (r !== undefined) console.log(JSON.stringify(previewRows(r)));
  } finally {
    await emu.close();
  }
}
