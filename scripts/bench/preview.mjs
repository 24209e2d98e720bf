/**
 * `mpsync dev`'s figures beside the design's own Vite (the export's setup, on a copy of the
 * same design), in Debian's Chromium (playwright-core, headless): the first run to first paint
 * (mpsync: an empty preview cache, so the design's packages are fetched; npm's own cache is
 * warm), cold starts to the first paint of the heading, and save to screen of a stylesheet
 * (applied in place) and of a component (Fast Refresh), medians of `saves` saves each. "On screen" is the first animation
 * frame in which the page shows the change, stamped with the page's clock
 * (performance.timeOrigin + now(), the same wall clock as this process's Date.now()).
 *
 *   node scripts/bench/preview.mjs [--saves 20] [--starts 5]
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launchChromium } from "../chromium.mjs";
import { BENCH_KEY, makeHome, spawnCli } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

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
  const page = pageWatcher(context);
  await context.exposeBinding("benchSeen", (_source, text, at) => page.seen(text, at));
  await context.addInitScript(WATCH_PAGE);
  try {
    // mpsync dev: its first run (an empty preview cache: the design's packages are fetched), then warm starts.
    const mpsync = await figures(context, page, home.root, { saves, starts, who: "mpsync dev" }, async () => {
      const dev = await spawnCli(["dev", "--port", "0"], { cwd: home.home, env });
      if (process.env.BENCH_DEBUG) dev.child.stderr.on("data", (d) => process.stderr.write(String(d)));
      await dev.waitForOutput(/preview on (http:\S+)/, 60_000);
      return { url: /preview on (http:\S+)/.exec(dev.stdout())[1], stop: () => (dev.child.kill("SIGINT"), dev.exited) };
    });
    // The design's own Vite (the export's setup: index.html, vite.config with the React plugin, PostCSS), on a copy.
    const say = (who, r) =>
      log(
        `preview (${who}): first run ${Math.round(r.firstRunMs)} ms, cold start ${Math.round(r.coldStartMs.median)} ms, stylesheet ${Math.round(r.cssSaveMs.median)} ms, component ${Math.round(r.componentSaveMs.median)} ms (medians)`,
      );
    say("mpsync dev", mpsync);
    const own = await ownViteCopy(home.root, join(home.home, "own-vite"));
    const vite = await figures(context, page, own, { saves, starts, who: "own vite" }, () => startOwnVite(own));
    say("own vite", vite);
    return { mpsync, vite };
  } finally {
    await closeBrowser();
    await home.remove();
  }
}

/** Waiters on what the page shows (WATCH_PAGE reports each new heading and letter spacing). */
function pageWatcher() {
  const waiters = [];
  let lastSeen = "";
  return {
    seen(text, at) {
      lastSeen = text;
      for (const w of [...waiters]) {
        if (!w.match(text)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(at);
      }
    },
    next(match, who, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`preview bench (${who}): the page did not show the change within ${timeoutMs} ms (last seen: ${lastSeen})`)),
          timeoutMs,
        );
        waiters.push({ match, resolve: (at) => (clearTimeout(timer), resolve(at)) });
      });
    },
  };
}

/** First run, cold starts, and saves to screen of one server of the design in `root`. */
async function figures(context, page, root, { saves, starts, who }, start) {
  const coldMs = [];
  let firstRunMs = Number.NaN;
  let server;
  let tab;
  for (let i = 0; i <= starts; i++) {
    await server?.stop();
    await tab?.close();
    const started = Date.now();
    server = await start();
    tab = await context.newPage();
    const painted = page.next((t) => t.startsWith("Bench|"), who, 180_000);
    await tab.goto(server.url);
    const at = await painted;
    if (i === 0) firstRunMs = at - started;
    else coldMs.push(at - started);
  }
  // The server's own file watcher (Vite's chokidar) may still be starting after the first paint.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const css = [];
  for (let i = 1; i <= saves; i++) {
    const shown = page.next((t) => t.endsWith(`|${i}px`), who);
    const t0 = Date.now();
    await writeFile(join(root, "index.css"), CSS(i));
    css.push((await shown) - t0);
  }
  const component = [];
  for (let i = 1; i <= saves; i++) {
    const shown = page.next((t) => t.startsWith(`Save ${i}|`), who);
    const t0 = Date.now();
    await writeFile(join(root, "App.tsx"), APP(`Save ${i}`));
    component.push((await shown) - t0);
  }
  await server.stop();
  await tab.close();
  return { firstRunMs, coldStartMs: summarize(coldMs), cssSaveMs: summarize(css), componentSaveMs: summarize(component) };
}

/** A copy of the design set up as the service's exports are, its packages from this repository. */
async function ownViteCopy(from, to) {
  await mkdir(to, { recursive: true });
  await copyFile(join(from, "index.tsx"), join(to, "index.tsx"));
  await writeFile(join(to, "App.tsx"), APP("Bench"));
  await writeFile(join(to, "index.css"), CSS(0));
  await writeFile(join(to, "tailwind.config.js"), 'export default { content: ["./index.html", "./*.{ts,tsx}"], theme: { extend: {} }, plugins: [] };\n');
  await writeFile(join(to, "postcss.config.js"), "export default { plugins: { tailwindcss: {}, autoprefixer: {} } };\n");
  await writeFile(join(to, "vite.config.js"), 'import react from "@vitejs/plugin-react";\nexport default { plugins: [react()], cacheDir: ".vite-cache" };\n');
  await writeFile(join(to, "package.json"), '{ "type": "module", "private": true }\n');
  await writeFile(
    join(to, "index.html"),
    '<!doctype html><html><head><meta charset="UTF-8"></head><body><div id="root"></div><script type="module" src="/index.tsx"></script></body></html>\n',
  );
  await symlink(join(REPO, "node_modules"), join(to, "node_modules"));
  return to;
}

/** `npx vite` in `root` on a free port (the export's `dev` script). */
async function startOwnVite(root) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO, "node_modules", "vite", "bin", "vite.js"), "--host", "127.0.0.1", "--port", String(port), "--strictPort"], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vite did not start within 60 s: ${out}`)), 60_000);
    child.stdout.setEncoding("utf8").on("data", (c) => {
      out += c;
      if (!out.includes(`:${port}/`)) return;
      clearTimeout(timer);
      resolve();
    });
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { url: `http://127.0.0.1:${port}/`, stop: () => (child.kill("SIGTERM"), exited) };
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Rows of the preview table: figure, target, then mpsync dev's and the design's own Vite's median and p90. */
export function previewRows(r) {
  const ms = (v) => `${Math.round(v)} ms`;
  const row = (name, target, key) => [
    name,
    target,
    ms(r.mpsync[key].median),
    ms(r.mpsync[key].p90),
    ms(r.vite[key].median),
    ms(r.vite[key].p90),
    `${r.mpsync[key].n}`,
  ];
  return [
    row("save to screen, stylesheet (in place)", "<= 100 ms", "cssSaveMs"),
    row("save to screen, component (Fast Refresh)", "<= 300 ms", "componentSaveMs"),
    row("cold start to first paint (warm cache)", "<= 3000 ms", "coldStartMs"),
    ["first run to first paint (empty preview cache)", "", ms(r.mpsync.firstRunMs), "", ms(r.vite.firstRunMs), "", "1"],
  ];
}

/** Header of the preview table. */
export const PREVIEW_HEADER = ["figure", "target", "mpsync dev median", "p90", "own vite median", "p90", "n"];

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
