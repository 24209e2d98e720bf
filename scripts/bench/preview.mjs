/**
 * `mpsync dev` beside the design's own toolchain, on the same design: one the bench creates as
 * the service exports it (export-design.mjs: Vite 5, React 18, TypeScript, Tailwind v3, a
 * component with state), synced by mpsync into one folder, and copied to another where
 * `npm install` and its own `vite` run, as a user of the export would. Both are measured by the
 * same Chromium (playwright-core, headless) and page probe: "on screen" is the first animation
 * frame showing the change, stamped with the page's clock (performance.timeOrigin + now(), the
 * same wall clock as this process's Date.now()).
 *
 * Figures: the first run's fetch (mpsync's toolchain into an empty cache; `npm install` in the
 * copy; npm's own cache warm for both), the first run to first paint, then `rounds` rounds,
 * each a cold start and `saves` saves of a stylesheet and of the component on each side (the
 * side going first alternating), reported as pooled medians and the median of the rounds'
 * ratios. `quick` skips the fetch and first run (the copy's packages come from a per-user cache).
 *
 *   node scripts/bench/preview.mjs [--rounds 3] [--saves 5] [--quick]
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os, { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launchChromium } from "../chromium.mjs";
import { COMPONENT_FILE, CSS_FILE, EXPORT_COUNTER, EXPORT_CSS, EXPORT_MANIFEST, exportFiles } from "./export-design.mjs";
import { BENCH_KEY, makeHome, spawnCli } from "./fixture.mjs";
import { poolRounds, PREVIEW_HEADER, previewRows } from "./preview-report.mjs";
import { pageWatcher, WATCH_PAGE } from "./preview-page.mjs";

export { PREVIEW_HEADER, previewRows };

/** How long a save may take to show before it counts as lost (the page is then loaded again). */
const LOST_SAVE_MS = 15_000;

/** Runs the preview figures; undefined (with a line saying why) without a browser. */
export async function benchPreview(emu, { rounds, saves, quick, log }) {
  if (!existsSync(CHROMIUM)) {
    log(`preview: not measured, no browser at ${CHROMIUM}`);
    return undefined;
  }
  const loadBefore = os.loadavg()[0];
  const { editorId } = emu.control.createDesign(BENCH_KEY, { name: "Bench export", files: exportFiles("Bench") });
  const home = await makeHome(emu.baseUrl, editorId);
  const env = { ...home.env, HOME: home.home, MPSYNC_PREVIEW_CACHE: join(home.home, ".preview-cache") };
  const pulled = await spawnCli(["pull"], { cwd: home.home, env });
  if ((await pulled.exited).code !== 0) throw new Error(`preview bench: mpsync pull failed: ${pulled.stderr()}`);
  const own = join(home.home, "own-vite");
  await cp(home.root, own, { recursive: true, filter: (src) => !src.includes(`${join(home.root, ".mpsync")}`) });
  const { context, close: closeBrowser } = await launchChromium("mpsync-bench-chromium-");
  const page = pageWatcher();
  await context.exposeBinding("benchSeen", (_source, text, at) => page.seen(text, at));
  await context.addInitScript(WATCH_PAGE);
  const sides = {
    mpsync: { name: "mpsync", who: "mpsync dev", root: home.root, start: () => startMpsyncDev(home.home, env) },
    vite: { name: "vite", who: "own vite", root: own, start: () => startOwnVite(own) },
  };
  try {
    const fetch = quick ? undefined : { mpsyncMs: await timeToolchainFetch(home.home, log), viteMs: await timeNpmInstall(own, log) };
    if (quick) await linkCachedInstall(own, log);
    // The first run of each side (mpsync: the design's packages fetched; both: dependencies
    // pre-bundled), reported unless quick, where the copy's come from the cache already built.
    const first = {};
    for (const side of ["mpsync", "vite"]) {
      const { ms, server, tab } = await coldStart(context, page, sides[side]);
      first[`${side}Ms`] = ms;
      await server.stop();
      await tab.close();
    }
    log(`preview: first run to first paint: mpsync dev ${Math.round(first.mpsyncMs)} ms, own vite ${Math.round(first.viteMs)} ms`);
    const firstRun = quick ? undefined : first;
    const measured = [];
    const lost = { mpsync: 0, vite: 0 };
    const stateKept = { mpsync: true, vite: true };
    for (let r = 0; r < rounds; r++) {
      const round = {};
      for (const side of r % 2 === 0 ? ["mpsync", "vite"] : ["vite", "mpsync"]) {
        round[side] = await measureRound(context, page, sides[side], { saves, lost, stateKept });
      }
      measured.push(round);
      const m = (side, k) => Math.round(round[side][k].sort((a, b) => a - b)[Math.floor(round[side][k].length / 2)]);
      log(
        `preview round ${r + 1}/${rounds}: cold start ${m("mpsync", "coldStartMs")} / ${m("vite", "coldStartMs")} ms, stylesheet ${m("mpsync", "cssSaveMs")} / ${m("vite", "cssSaveMs")} ms, component ${m("mpsync", "componentSaveMs")} / ${m("vite", "componentSaveMs")} ms (mpsync dev / own vite)`,
      );
    }
    return { rounds: measured, pooled: poolRounds(measured), fetch, firstRun, lost, stateKept, saves, quick, loadBefore };
  } finally {
    await closeBrowser();
    await home.remove();
  }
}

/** One server of the design to first paint: the time, the server and the tab. */
async function coldStart(context, page, side) {
  const started = Date.now();
  const server = await side.start();
  const tab = await context.newPage();
  const painted = page.next((t) => t.startsWith("Bench|"), side.who, 240_000);
  await tab.goto(server.url);
  const ms = (await painted) - started;
  return { ms, server, tab };
}

/** A cold start, then `saves` saves of the stylesheet and of the component, each timed to the screen. */
async function measureRound(context, page, side, { saves, lost, stateKept }) {
  const { ms, server, tab } = await coldStart(context, page, side);
  const out = { coldStartMs: [ms], cssSaveMs: [], componentSaveMs: [], cpuMs: [] };
  try {
    // Vite's dependency scan may still be running after the first paint; a click gives the
    // component a state that a component save must keep.
    const clicked = page.next((t) => t.endsWith("|1"), side.who);
    await tab.click("#count");
    await clicked;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    let reloaded = false;
    const save = async (file, text, match) => {
      const shown = page.next(match, side.who, LOST_SAVE_MS);
      const t0 = Date.now();
      await writeFile(join(side.root, file), text);
      try {
        return (await shown) - t0;
      } catch {
        // A save the server missed (its page is broken or stale): counted; the file is written
        // again (the server may hold the empty file of the save's truncation) and the page loaded again.
        lost[side.name] += 1;
        reloaded = true;
        const again = page.next(match, side.who);
        await writeFile(join(side.root, file), text);
        await tab.reload();
        await again;
        return undefined;
      }
    };
    for (let i = 1; i <= saves; i++) {
      const t = await save(CSS_FILE, EXPORT_CSS(i), (s) => s.split("|")[1] === `${i}px`);
      if (t !== undefined) out.cssSaveMs.push(t);
    }
    for (let i = 1; i <= saves; i++) {
      const t = await save(COMPONENT_FILE, EXPORT_COUNTER(`Bench ${i}`), (s) => s.startsWith(`Bench ${i}|`));
      if (t !== undefined) out.componentSaveMs.push(t);
    }
    if (!reloaded && !page.last().endsWith("|1")) stateKept[side.name] = false;
    // Back to the design as it was, for the next cold start (not timed).
    await save(COMPONENT_FILE, EXPORT_COUNTER("Bench"), (t) => t.startsWith("Bench|"));
    // Chromium computes `letter-spacing: 0px` as "normal".
    await save(CSS_FILE, EXPORT_CSS(0), (t) => t.startsWith("Bench|") && ["0px", "normal"].includes(t.split("|")[1]));
    out.cpuMs = [server.cpuMs()];
  } finally {
    await server.stop();
    await tab.close();
  }
  return out;
}

/** `mpsync dev --port 0` in the home holding the .syncrc. */
async function startMpsyncDev(cwd, env) {
  const dev = await spawnCli(["dev", "--port", "0"], { cwd, env });
  if (process.env.BENCH_DEBUG) dev.child.stderr.on("data", (d) => process.stderr.write(String(d)));
  await dev.waitForOutput(/preview on (http:\S+)/, 60_000);
  return { url: /preview on (http:\S+)/.exec(dev.stdout())[1], cpuMs: () => cpuMs(dev.child.pid), stop: () => (dev.child.kill("SIGINT"), dev.exited) };
}

/** What a first `mpsync dev` outside a clone fetches: its toolchain, into an empty cache (nothing beside mpsync). */
async function timeToolchainFetch(home, log) {
  const { loadToolchain } = await import("../../dist/preview/toolchain.js");
  const { NpmInstaller } = await import("../../dist/preview/package-installer.js");
  const nowhere = await mkdtemp(join(home, "no-toolchain-"));
  const t0 = Date.now();
  await loadToolchain({ cacheDir: join(home, ".toolchain-cache"), installer: new NpmInstaller(), besideMpsync: join(nowhere, "bin.cjs") });
  const ms = Date.now() - t0;
  log(`preview: first run's fetch, mpsync's toolchain: ${(ms / 1000).toFixed(1)} s`);
  return ms;
}

/** The export's own first step: `npm install` in the copy. */
async function timeNpmInstall(dir, log) {
  const t0 = Date.now();
  await npmInstall(dir);
  const ms = Date.now() - t0;
  log(`preview: first run's fetch, npm install in the copy: ${(ms / 1000).toFixed(1)} s`);
  return ms;
}

/** The copy's packages from a per-user cache keyed by its package.json (installed there once). */
async function linkCachedInstall(dir, log) {
  const key = createHash("sha256").update(JSON.stringify(EXPORT_MANIFEST)).digest("hex").slice(0, 16);
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "mpsync", "bench", "own-vite", key);
  if (!existsSync(join(cache, ".installed"))) {
    log(`preview: installing the export's packages into ${cache} (once)`);
    await rm(cache, { recursive: true, force: true });
    await mkdir(cache, { recursive: true });
    await writeFile(join(cache, "package.json"), `${JSON.stringify(EXPORT_MANIFEST, null, 2)}\n`);
    await npmInstall(cache);
    await writeFile(join(cache, ".installed"), "");
  }
  await symlink(join(cache, "node_modules"), join(dir, "node_modules"));
}

function npmInstall(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (s) => (err += s));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`npm install in ${dir} failed: ${err.slice(-500)}`))));
  });
}

/** The export's `dev` script (`npx vite`) in `root` on a free port. */
async function startOwnVite(root) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, "node_modules", "vite", "bin", "vite.js"), "--host", "127.0.0.1", "--port", String(port), "--strictPort"], {
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
  return { url: `http://127.0.0.1:${port}/`, cpuMs: () => cpuMs(child.pid), stop: () => (child.kill("SIGTERM"), exited) };
}

/**
 * CPU time (user + system) a process and its children (Vite 5's esbuild service) have used so
 * far, from /proc (Linux; NaN elsewhere).
 */
function cpuMs(pid) {
  try {
    // utime and stime, fields 14 and 15 of the line (11 and 12 after the command), in clock ticks of 10 ms.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    const own = (Number(fields[11]) + Number(fields[12])) * 10;
    const children = readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean),
    );
    return own + children.reduce((sum, child) => sum + (cpuMs(Number(child)) || 0), 0);
  } catch {
    return Number.NaN;
  }
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { rounds: { type: "string", default: "3" }, saves: { type: "string", default: "5" }, quick: { type: "boolean", default: false } },
  });
  const { startBenchEmulator } = await import("./fixture.mjs");
  const { formatTable } = await import("./report.mjs");
  const emu = await startBenchEmulator();
  try {
    const log = (l) => process.stderr.write(`${l}\n`);
    const r = await benchPreview(emu, { rounds: Number(values.rounds), saves: Number(values.saves), quick: values.quick, log });
    if (r !== undefined) console.log(formatTable(PREVIEW_HEADER, previewRows(r)));
  } finally {
    await emu.close();
  }
}
