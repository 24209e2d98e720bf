/**
 * The read-to-PATCH window of a push (README, "Known limit"): from the service answering the
 * read a push decides on to the PATCH having arrived at the service. Another writer's save that
 * lands inside it is overwritten unseen (the API has no compare-and-swap), so it must hold
 * nothing but the request. Measured on one in-process WatchDaemon over a real folder, for small
 * and large files, on an idle machine and with every core kept busy by other processes (a
 * build running beside the daemon). Times come from the emulator's request log, on this
 * process's monotonic clock.
 */
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { dirname, join } from "node:path";
import { WatchDaemon } from "../../dist/daemon/watch-daemon.js";
import { BENCH_KEY, fileText, makeFiles, makeHome, ROUTES, routeOf, sleep } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

const FILES = ["src/App.tsx", "src/big/data.ts"];
const SAVE_TIMEOUT_MS = 30_000;

/** Processes that keep every core busy until killed. */
function startBurners() {
  return Array.from({ length: os.cpus().length }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
}

async function startDaemon(emu, bytes) {
  const files = { ...makeFiles(20, 2048, "lib") };
  for (const f of FILES) files[f] = fileText(`${f} v0`, bytes);
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files });
  const home = await makeHome(emu.baseUrl, editorId, { debounceMs: 150, pollIntervalSec: 60 });
  const runtime = await home.runtime();
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: () => undefined });
  await daemon.start();
  return { editorId, home, runtime, daemon };
}

/** One save; resolves the window of the PATCH that carried it (ms), with the read it decided on. */
async function timedWindow(emu, ctx, rel, content) {
  const { control } = emu;
  const before = control.countRequests();
  const abs = join(ctx.home.root, rel);
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, content);
  const deadline = performance.now() + SAVE_TIMEOUT_MS;
  while (control.getFiles(ctx.editorId)[rel] !== content) {
    if (performance.now() > deadline) throw new Error(`window: ${rel} never reached the service`);
    await sleep(5);
  }
  await Promise.all(ctx.daemon.workers.map((w) => w.idle()));
  const log = control.requests().slice(before);
  const patch = log.findLast((e) => routeOf(e) === ROUTES.patch && e.status === 200);
  const read = log.slice(0, log.indexOf(patch)).findLast((e) => routeOf(e) === ROUTES.read);
  if (patch === undefined || read === undefined) throw new Error(`window: no read and PATCH for ${rel}`);
  return patch.receivedMs - read.answeredMs;
}

/** `saves` saves per file size, idle then under load; one row each. */
export async function benchWindow(emu, { saves, sizes = [2048, 1024 * 1024], log }) {
  const rows = [];
  for (const loaded of [false, true]) {
    const burners = loaded ? startBurners() : [];
    try {
      for (const bytes of sizes) {
        const ctx = await startDaemon(emu, bytes);
        try {
          const windows = [];
          for (let i = 0; i < saves; i++) {
            const rel = FILES[i % FILES.length];
            windows.push(await timedWindow(emu, ctx, rel, fileText(`${rel} save ${i}`, bytes)));
            await sleep(20 + Math.random() * 30);
          }
          rows.push({ bytes, loaded, windowMs: summarize(windows), load: os.loadavg()[0] });
          log(
            `window, ${bytes} B files${loaded ? ", every core busy" : ""}: median ${rows.at(-1).windowMs.median.toFixed(1)} ms, max ${rows.at(-1).windowMs.max.toFixed(1)} ms`,
          );
        } finally {
          await ctx.daemon.stop();
          await ctx.runtime.close();
          await ctx.home.remove();
        }
      }
    } finally {
      for (const b of burners) b.kill();
    }
  }
  return rows;
}

export const WINDOW_HEADER = ["file size", "machine", "saves", "window median", "p90", "max"];

const size = (bytes) => (bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`);
const ms = (x) => `${x.toFixed(1)} ms`;

/** Table rows for the report. */
export function windowRows(rows) {
  return rows.map((r) => [
    size(r.bytes),
    r.loaded ? `every core busy (load ${r.load.toFixed(1)})` : "idle",
    String(r.windowMs.n),
    ms(r.windowMs.median),
    ms(r.windowMs.p90),
    ms(r.windowMs.max),
  ]);
}
