/**
 * Figure 8, mpsync over a network: the emulator adds `latencyMs` to every request
 * (its fault option), at 50, 100 and 200 ms, one latency after the other in one run:
 *   a. save -> server: writeFile resolving -> the emulator answered the PATCH carrying it,
 *      on an in-process WatchDaemon (debounceMs 150, no status poll inside the window);
 *   b. the first save after an idle longer than undici's keep-alive (4 s) and the emulator's
 *      (node:http's 5 s): its time, and the TCP connections the emulator accepted during it
 *      (the emulator charges no handshake; the real service costs a TCP and TLS handshake,
 *      2-3 round trips, per new connection);
 *   c. a new version (control.setFiles, newArtifact) shown by a status poll -> its files on
 *      disk, and the requests in between;
 * and, without latency (bytes and requests do not depend on it), the idle cost of a synced
 * 2,000-file design (figure 8d): pollIntervalSec and remoteCheckSec both scaled from 60 s to
 * 0.5 s, bytes (at the emulator's sockets, and decoded) and requests over whole sweeps (10
 * checks each), then per check x 60 checks an hour, as at the defaults; once with the emulator
 * compressing answers, once without (a service that does not compress).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { WatchDaemon } from "../../dist/daemon/watch-daemon.js";
import { BENCH_KEY, countByRoute, fileText, makeFiles, makeHome, makeSourceFiles, openOnlyDesign, ROUTES, routeOf, sleep, withRequests } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

export const LATENCIES_MS = [50, 100, 200];
const DEBOUNCE_MS = 150;
const SAVE_FILES = ["src/App.tsx", "src/components/Button.tsx", "src/index.css", "src/pages/Home.tsx"];
const TIMEOUT_MS = 20_000;
/** Seconds of the defaults (pollIntervalSec, remoteCheckSec) and of the scaled idle run. */
const DEFAULT_SEC = 60;
const SCALED_SEC = 0.5;
const SWEEP_ROUNDS = 10;

async function startDaemon(emu, editorId, syncrc) {
  const home = await makeHome(emu.baseUrl, editorId, { debounceMs: DEBOUNCE_MS, ...syncrc });
  const runtime = await home.runtime();
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: () => undefined });
  await daemon.start();
  await Promise.all(daemon.workers.map((w) => w.idle()));
  return {
    home,
    daemon,
    idle: () => Promise.all(daemon.workers.map((w) => w.idle())),
    async stop() {
      await daemon.stop().catch(() => undefined);
      await runtime.close();
      await home.remove();
    },
  };
}

function smallDesign(emu) {
  const files = makeFiles(20, 2048, "lib");
  for (const f of SAVE_FILES) files[f] = fileText(`${f} v0`, 2048);
  return emu.control.createDesign(BENCH_KEY, { files }).editorId;
}

/** One save: ms from writeFile to the PATCH carrying it answered; requests and new connections. */
async function timedSave(emu, ctx, editorId, rel, content) {
  const { control } = emu;
  const landed = (async () => {
    for (;;) {
      await control.waitForRequest((x) => routeOf(x) === ROUTES.patch, { timeoutMs: TIMEOUT_MS });
      if (control.getFiles(editorId)[rel] === content) return performance.now();
    }
  })();
  const before = control.countRequests();
  const connections = control.connections().opened;
  await writeFile(join(ctx.home.root, rel), content);
  const written = performance.now();
  const ms = (await landed) - written;
  const opened = control.connections().opened - connections;
  await ctx.idle();
  return { ms, opened, requests: control.requests().slice(before) };
}

/** Figures 8a and 8b at one latency. */
async function benchSaves(emu, latencyMs, { saves, idleMs }) {
  const editorId = smallDesign(emu);
  const ctx = await startDaemon(emu, editorId, { pollIntervalSec: 60 });
  try {
    emu.control.setFaults({ latencyMs, handshakeMs: 2 * latencyMs });
    const times = [];
    const opened = [];
    const routes = [];
    for (let i = 0; i < saves; i++) {
      const rel = SAVE_FILES[i % SAVE_FILES.length];
      const r = await timedSave(emu, ctx, editorId, rel, fileText(`${rel} save ${i} at ${latencyMs}`, 2048));
      times.push(r.ms);
      opened.push(r.opened);
      routes.push(...r.requests);
      await sleep(20 + Math.random() * 30);
    }
    await sleep(idleMs);
    const afterIdle = await timedSave(emu, ctx, editorId, SAVE_FILES[0], fileText(`after idle at ${latencyMs}`, 2048));
    const perSave = Object.fromEntries(Object.entries(countByRoute(routes)).map(([k, n]) => [k, n / saves]));
    return {
      saveMs: summarize(times),
      openedPerSave: summarize(opened),
      perSave,
      idleMs,
      afterIdleMs: afterIdle.ms,
      afterIdleOpened: afterIdle.opened,
      afterIdleRoutes: countByRoute(afterIdle.requests),
    };
  } finally {
    emu.control.setFaults({ latencyMs: 0 });
    await ctx.stop();
  }
}

/** Figure 8c at one latency: setFiles (new artifact) -> the status answer -> files on disk. */
async function benchNewVersion(emu, latencyMs, { runs }) {
  const editorId = smallDesign(emu);
  const ctx = await startDaemon(emu, editorId, { pollIntervalSec: 1 });
  const { control } = emu;
  try {
    control.setFaults({ latencyMs, handshakeMs: 2 * latencyMs });
    const times = [];
    const between = [];
    for (let run = 0; run < runs; run++) {
      const files = { ...control.getFiles(editorId) };
      const changed = SAVE_FILES.slice(0, 3);
      for (const rel of changed) files[rel] = fileText(`${rel} version ${run} at ${latencyMs}`, 2048);
      const shown = control
        .waitForRequest((e) => routeOf(e) === ROUTES.status, { timeoutMs: TIMEOUT_MS })
        .then(() => ({ at: performance.now(), index: control.countRequests() }));
      control.setFiles(editorId, files, { newArtifact: true });
      const status = await shown;
      const deadline = performance.now() + TIMEOUT_MS;
      for (;;) {
        const texts = await Promise.all(changed.map((rel) => readFile(join(ctx.home.root, rel), "utf8").catch(() => "")));
        if (texts.every((t, i) => t === files[changed[i]])) break;
        if (performance.now() > deadline) throw new Error(`new version not on disk after ${TIMEOUT_MS} ms`);
        await sleep(2);
      }
      times.push(performance.now() - status.at);
      between.push(
        ...control
          .requests()
          .slice(status.index)
          .filter((e) => routeOf(e) !== ROUTES.status),
      );
      await ctx.idle();
      await sleep(200);
    }
    const routes = Object.fromEntries(Object.entries(countByRoute(between)).map(([k, n]) => [k, n / runs]));
    return { ms: summarize(times), routes, files: Object.keys(control.getFiles(editorId)).length };
  } finally {
    control.setFaults({ latencyMs: 0 });
    await ctx.stop();
  }
}

/**
 * Figure 8d: an idle, synced design of `files` files at the defaults, from a scaled run, with
 * the emulator compressing (`compress`: "auto", as a service behind a CDN would) or not ("off").
 * The files are cut from real source text (makeSourceFiles): makeFiles' repeated line would
 * compress a hundredfold and flatter the compressed run.
 */
export async function benchIdleCost(emu, { files, bytes, sweeps, compress }) {
  const { control } = emu;
  const { editorId } = control.createDesign(BENCH_KEY, { files: await makeSourceFiles(files, bytes) });
  const syncrc = { pollIntervalSec: SCALED_SEC, remoteCheckSec: SCALED_SEC };
  const home = await makeHome(emu.baseUrl, editorId, syncrc);
  // Seed the folder first: files the daemon pulls itself count as recently changed for an hour.
  // Plain (no compression): the baseline "every file at every check".
  control.setCompression("off");
  const seedRuntime = await home.runtime();
  const before = control.connections();
  await (await openOnlyDesign(seedRuntime)).fullSync();
  // Bytes the client reads: what the emulator's sockets wrote.
  const fullReadBytes = control.connections().bytesWritten - before.bytesWritten;
  await seedRuntime.close();
  control.setCompression(compress);
  const runtime = await home.runtime();
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: () => undefined });
  try {
    await daemon.start();
    await daemon.workers[0].idle();
    await sleep(SCALED_SEC * 1000);
    // A window of whole sweeps, counted in checks: under load the scaled loop runs slower than
    // its interval, so time would undercount. A check takes its listing from the status answer
    // (no active-artifact call) and reads a tenth of the files, in batches of 100.
    const checks = sweeps * SWEEP_ROUNDS;
    const readsPerCheck = Math.ceil(Math.ceil(files / SWEEP_ROUNDS) / 100);
    const start = control.connections();
    const started = performance.now();
    const { requests } = await withRequests(control, async () => {
      const first = control.countRequests();
      const deadline = performance.now() + TIMEOUT_MS * 3;
      while (
        control
          .requests()
          .slice(first)
          .filter((e) => routeOf(e) === ROUTES.read).length <
        checks * readsPerCheck
      ) {
        if (performance.now() > deadline) throw new Error(`fewer than ${checks} checks in ${TIMEOUT_MS * 3} ms`);
        await sleep(20);
      }
    });
    const windowMs = performance.now() - started;
    const end = control.connections();
    const windowBytes = end.bytesWritten - start.bytesWritten;
    // Decoded: the same answers with their bodies as the client has them once decompressed.
    const decodedBytes = windowBytes - (end.bodyBytesSent - start.bodyBytesSent) + (end.bodyBytesDecoded - start.bodyBytesDecoded);
    const sentBytes = end.bytesRead - start.bytesRead;
    // At the defaults a check and a status poll each come once a minute: the window's bytes and
    // requests (its status polls included) per check, 60 checks an hour.
    const perCheckToHour = (n) => (n / checks) * (3600 / DEFAULT_SEC);
    const counts = countByRoute(requests);
    // Status polls run on their own schedule, one per pollIntervalSec at the defaults (the scaled
    // loop polls more often than it checks when a check outlasts its interval).
    const perHour = {
      [ROUTES.status]: 3600 / DEFAULT_SEC,
      ...Object.fromEntries(
        Object.entries(counts)
          .filter(([k]) => k !== ROUTES.status)
          .map(([k, n]) => [k, Math.round(perCheckToHour(n))]),
      ),
    };
    // Before src/sync/check-scope.ts every check read every file: a full read (what the seed pull moved) per check.
    const fullEveryCheckPerHour = fullReadBytes * (3600 / DEFAULT_SEC);
    const bytesPerHour = perCheckToHour(windowBytes);
    const decodedPerHour = perCheckToHour(decodedBytes);
    const sentPerHour = perCheckToHour(sentBytes);
    return {
      files,
      compress,
      checks,
      windowMs,
      bytesPerHour,
      decodedPerHour,
      sentPerHour,
      fullReadBytes,
      fullEveryCheckPerHour,
      requestsPerHour: perHour,
      statusPerCheck: (counts[ROUTES.status] ?? 0) / checks,
    };
  } finally {
    await daemon.stop().catch(() => undefined);
    await runtime.close();
    await home.remove();
    control.setCompression("auto");
  }
}

/** Runs figure 8. */
export async function benchLatency(emu, { saves, versionRuns, idleMs, idleFiles, idleSweeps, bytes, log }) {
  const rows = [];
  for (const latencyMs of LATENCIES_MS) {
    const save = await benchSaves(emu, latencyMs, { saves, idleMs });
    log(
      `latency ${latencyMs} ms: save median ${Math.round(save.saveMs.median)} ms; after ${idleMs / 1000} s idle ${Math.round(save.afterIdleMs)} ms, ${save.afterIdleOpened} new connection(s)`,
    );
    const version = await benchNewVersion(emu, latencyMs, { runs: versionRuns });
    log(`latency ${latencyMs} ms: new version -> disk median ${Math.round(version.ms.median)} ms; ${JSON.stringify(version.routes)}`);
    rows.push({ latencyMs, ...save, version });
  }
  const idle = await benchIdleCost(emu, { files: idleFiles, bytes, sweeps: idleSweeps, compress: "auto" });
  const idlePlain = await benchIdleCost(emu, { files: idleFiles, bytes, sweeps: idleSweeps, compress: "off" });
  for (const x of [idle, idlePlain]) {
    log(
      `idle ${x.files} files at defaults, compress ${x.compress}: ${(x.bytesPerHour / 1e6).toFixed(1)} MB/h on the wire, ${(x.decodedPerHour / 1e6).toFixed(1)} MB/h decoded (${(x.fullEveryCheckPerHour / 1e6).toFixed(0)} MB/h reading all every check); ${JSON.stringify(x.requestsPerHour)}`,
    );
  }
  return { debounceMs: DEBOUNCE_MS, rows, idle, idlePlain };
}
