/**
 * Figure 4: a folder of N unchanged files (seeded by a first mpsync pull), then (a) the
 * start-up reconcile, a full sync on a NEW Runtime, as a daemon restart does, with a phase
 * breakdown; (b) the built `mpsync watch` idling in a child process: CPU, RSS and the status
 * polls it makes (figure 5's idle count).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { readRemoteSnapshot } from "../../dist/sync/remote-snapshot.js";
import { openFsFolder } from "../../dist/sync/fs-adapters.js";
import { BENCH_KEY, countByRoute, makeFiles, makeHome, openOnlyDesign, ROUTES, routeOf, sleep, spawnCli, withRequests } from "./fixture.mjs";
import { summarize } from "./stats.mjs";
import { readEveryFile } from "./pull.mjs";

/** One start-up reconcile: new Runtime, open (state.json with its scan cache), full sync. */
async function reconcileOnce(emu, home) {
  const runtime = await home.runtime();
  try {
    const started = performance.now();
    const { result: report, requests } = await withRequests(emu.control, async () => (await openOnlyDesign(runtime)).fullSync());
    const ms = performance.now() - started;
    const r = report.result;
    const touched = (r?.pulled.length ?? 0) + (r?.pushed.length ?? 0) + (r?.removed.length ?? 0) + (r?.conflicts.length ?? 0);
    if (touched !== 0) throw new Error(`reconcile of an unchanged folder changed ${touched} files`);
    return { ms, requests };
  } finally {
    await runtime.close();
  }
}

/**
 * The minimal checker a re-pull is measured against: every file read as the
 * reference client reads it (readEveryFile), each compared with the local file. No state.
 */
async function referenceCheck(baseUrl, editorId, root) {
  const started = performance.now();
  let differ = 0;
  const files = await readEveryFile(baseUrl, editorId, async (f) => {
    const local = await readFile(join(root, f.name), "utf8").catch(() => undefined);
    if (local !== f.content) differ++;
  });
  return { ms: performance.now() - started, differ, files };
}

/** Inotify watches held by process `pid` (Linux; undefined elsewhere). */
export async function inotifyWatches(pid) {
  try {
    let watches = 0;
    for (const fd of await readdir(`/proc/${pid}/fdinfo`)) {
      const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, "utf8").catch(() => "");
      watches += (info.match(/^inotify /gm) ?? []).length;
    }
    return watches;
  } catch {
    return undefined;
  }
}

/** Where a reconcile's time goes: state load, local scan (scan cache), remote read. */
async function reconcilePhases(home, mappingRoot, editorId) {
  const runtime = await home.runtime();
  try {
    const folder = await openFsFolder(mappingRoot, [], runtime.clock);
    let t = performance.now();
    await folder.store.load();
    const loadMs = performance.now() - t;
    t = performance.now();
    const scanned = await folder.local.scan();
    const scanMs = performance.now() - t;
    t = performance.now();
    const remote = await readRemoteSnapshot(await runtime.client(), editorId);
    const remoteMs = performance.now() - t;
    return { loadMs, scanMs, remoteMs, scanned: scanned.size, remoteFiles: remote.texts.size };
  } finally {
    await runtime.close();
  }
}

/** `mpsync watch` from spawn to its `ready` event, `runs` times (a single run is too noisy here). */
async function watchReady(home, runs, log) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cli = await spawnCli(["watch", "--json"], { cwd: home.home, env: home.env });
    try {
      await cli.waitForOutput(/"event":"ready"/, 180_000);
      times.push(performance.now() - started);
    } finally {
      cli.child.kill("SIGTERM");
      await cli.exited;
    }
    log(`  watch start to ready ${i + 1}: ${Math.round(times.at(-1))} ms`);
  }
  return summarize(times);
}

/** From 2 s after `ready` until idle sampling begins. */
const SETTLE_MS = 13_000;

/** The daemon as users run it, idle: CPU and RSS from the probe, status polls from the log. */
async function idleWatch(emu, home, { idleSec, pollSec, log }) {
  const started = performance.now();
  const cli = await spawnCli(["watch", "--json"], { cwd: home.home, env: home.env });
  try {
    await cli.waitForOutput(/"event":"ready"/, 180_000);
    const readyMs = performance.now() - started;
    // Right after the start-up cycle: reported on its own row (what a person sees at once).
    await sleep(2000);
    const early = await cli.sample();
    // Idle means settled: the daemon collects the start-up cycle's garbage once quiet
    // (src/core/heap.ts) and V8's memory reducer hands pages back about 8 s after that.
    await sleep(SETTLE_MS);
    const from = emu.control.countRequests();
    const samples = [await cli.sample()];
    const sampleEveryMs = pollSec * 1000;
    for (let t = 0; t < idleSec * 1000; t += sampleEveryMs) {
      await sleep(Math.min(sampleEveryMs, idleSec * 1000 - t));
      samples.push(await cli.sample());
    }
    const requests = emu.control.requests().slice(from);
    const first = samples[0];
    const last = samples.at(-1);
    const cpuMs = (last.cpu.user + last.cpu.system - first.cpu.user - first.cpu.system) / 1000;
    const wallMs = last.at - first.at;
    const status = requests.filter((e) => routeOf(e) === ROUTES.status);
    const gaps = status.slice(1).map((e, i) => e.at - status[i].at);
    const watches = await inotifyWatches(cli.child.pid);
    log(
      `  idle ${idleSec} s: ${status.length} status polls, ${watches} inotify watches, CPU ${((100 * cpuMs) / wallMs).toFixed(2)} %, RSS ${(last.rss / 2 ** 20).toFixed(1)} MiB`,
    );
    return {
      readyMs,
      inotifyWatches: watches,
      idleSec,
      pollSec,
      cpuMs,
      cpuPercent: (100 * cpuMs) / wallMs,
      rssBytes: summarize(samples.map((s) => s.rss)),
      earlyRssBytes: early.rss,
      settleMs: SETTLE_MS,
      rssGrowthBytes: last.rss - first.rss,
      heapAtEnd: { usedBytes: last.heapUsed, totalBytes: last.heapTotal, externalBytes: last.external },
      peakRssBeforeStopBytes: last.maxRssKb * 1024,
      statusPolls: status.length,
      expectedPolls: idleSec / pollSec,
      pollGapsMs: summarize(gaps),
      otherRequests: requests.length - status.length,
      routes: countByRoute(requests),
    };
  } finally {
    cli.child.kill("SIGTERM");
    const exit = await cli.exited;
    if (exit.code !== 0) log(`  watch exited ${exit.code ?? exit.signal}: ${exit.stderr.slice(-300)}`);
  }
}

/** Runs figure 4 on a design of `files` files of `bytes` bytes. */
export async function benchStartupIdle(emu, { files, bytes, runs, idleSec, pollSec, log }) {
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(files, bytes) });
  // The content check (remoteCheckSec) has its own figure (the remote-check section); here the
  // idle cost is the status polls alone.
  const home = await makeHome(emu.baseUrl, editorId, { pollIntervalSec: pollSec, remoteCheckSec: 3600 });
  try {
    log(`start-up reconcile: seeding ${files} files of ${bytes} B with a first mpsync pull`);
    const seedRuntime = await home.runtime();
    const seedStarted = performance.now();
    await (await openOnlyDesign(seedRuntime)).fullSync();
    const firstPullMs = performance.now() - seedStarted;
    await seedRuntime.close();
    log(`  first pull: ${Math.round(firstPullMs)} ms`);
    const times = [];
    const checker = [];
    let requests;
    for (let i = 0; i < runs; i++) {
      // Interleaved with the minimal checker, alternating who goes first.
      const order = i % 2 === 0 ? ["mpsync", "checker"] : ["checker", "mpsync"];
      for (const who of order) {
        if (who === "mpsync") {
          const r = await reconcileOnce(emu, home);
          times.push(r.ms);
          requests ??= r.requests;
        } else {
          const c = await referenceCheck(emu.baseUrl, editorId, home.root);
          if (c.differ !== 0 || c.files !== files) throw new Error(`checker: ${c.differ} of ${c.files} files differ`);
          checker.push(c.ms);
        }
      }
      log(`  reconcile ${i + 1}: ${Math.round(times.at(-1))} ms; minimal checker ${Math.round(checker.at(-1))} ms`);
    }
    const phases = await reconcilePhases(home, home.root, editorId);
    log(`  phases: state load ${Math.round(phases.loadMs)} ms, local scan ${Math.round(phases.scanMs)} ms, remote read ${Math.round(phases.remoteMs)} ms`);
    const readyMs = await watchReady(home, runs, log);
    log(`idle watch: ${files} files, pollIntervalSec ${pollSec}, ${idleSec} s`);
    const idle = await idleWatch(emu, home, { idleSec, pollSec, log });
    return {
      files,
      bytes,
      firstPullMs,
      readyMs,
      reconcileMs: summarize(times),
      firstReconcileMs: times[0],
      checkerMs: summarize(checker),
      checkerRatio: summarize(times.map((ms, i) => ms / checker[i])),
      phases,
      requests: countByRoute(requests),
      idle,
    };
  } finally {
    await home.remove();
  }
}

/** An idle `mpsync watch` on a smaller folder (the 2,000-file RSS target). */
export async function benchIdleSmall(emu, { files, bytes, idleSec, pollSec, log }) {
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(files, bytes) });
  const home = await makeHome(emu.baseUrl, editorId, { pollIntervalSec: pollSec, remoteCheckSec: 3600 });
  try {
    const seed = await home.runtime();
    await (await openOnlyDesign(seed)).fullSync();
    await seed.close();
    log(`idle watch: ${files} files, pollIntervalSec ${pollSec}, ${idleSec} s`);
    return { files, idle: await idleWatch(emu, home, { idleSec, pollSec, log }) };
  } finally {
    await home.remove();
  }
}
