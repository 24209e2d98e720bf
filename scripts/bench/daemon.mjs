/**
 * Figures 1 and 2 on one in-process WatchDaemon (debounceMs 150) over a real temp folder:
 * save-to-server latency of single saves, then bursts of 500 writes to 50 files in 1 s.
 * The daemon, its Runtime and the emulator share this process, as in the integration tests.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { WatchDaemon } from "../../dist/daemon/watch-daemon.js";
import { BENCH_KEY, countByRoute, fileText, makeFiles, makeHome, ROUTES, routeOf, sleep, spawnCli, withRequests } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

export const DEBOUNCE_MS = 150;
const SAVE_FILES = ["src/App.tsx", "src/components/Button.tsx", "src/index.css", "src/pages/Home.tsx"];
const BURST_FILES = Array.from({ length: 50 }, (_, i) => `burst/b${String(i).padStart(2, "0")}.tsx`);
const BURST_WRITES = 500;
const BURST_SPAN_MS = 1000;
const SAVE_TIMEOUT_MS = 10_000;

/** Starts the emulator design, a home and a daemon on it; resolves once the daemon is ready. */
async function startDaemon(emu) {
  const files = { ...makeFiles(20, 2048, "lib") };
  for (const f of [...SAVE_FILES, ...BURST_FILES]) files[f] = fileText(`${f} v0`, 2048);
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files });
  const home = await makeHome(emu.baseUrl, editorId, { debounceMs: DEBOUNCE_MS, pollIntervalSec: 60 });
  const runtime = await home.runtime();
  const events = [];
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: (e) => events.push(e) });
  await daemon.start();
  if (!events.some((e) => e.event === "ready")) throw new Error(`daemon not ready: ${JSON.stringify(events)}`);
  return { editorId, home, runtime, daemon, events };
}

/**
 * One save: write, then wait for the PATCH that carries exactly this content. Latency runs from
 * writeFile resolving to the emulator having answered that PATCH (it has stored the content by
 * then); `detectMs` is when the cycle's first request (GET active-artifact) arrived, i.e. the
 * watcher and the debounce.
 */
async function timedSave(emu, ctx, rel, content) {
  const { control } = emu;
  const firstRequest = control.waitForRequest((e) => routeOf(e) === ROUTES.active, { timeoutMs: SAVE_TIMEOUT_MS });
  // The window: from the pre-push read reaching the service to the PATCH reaching it.
  // Another writer's save inside it is overwritten unseen (the API has no compare-and-swap).
  const readAt = control.waitForRequest((e) => routeOf(e) === ROUTES.read, { timeoutMs: SAVE_TIMEOUT_MS }).then(() => performance.now());
  let patchAt = 0;
  const landed = (async () => {
    for (;;) {
      const e = await control.waitForRequest((x) => routeOf(x) === ROUTES.patch, { timeoutMs: SAVE_TIMEOUT_MS });
      patchAt = performance.now();
      if (control.getFiles(ctx.editorId)[rel] === content) return e;
    }
  })();
  const abs = join(ctx.home.root, rel);
  await mkdir(dirname(abs), { recursive: true });
  const before = control.countRequests();
  await writeFile(abs, content);
  const written = performance.now();
  await firstRequest;
  const detectMs = performance.now() - written;
  await landed;
  const ms = performance.now() - written;
  const windowMs = patchAt - (await readAt);
  // Let the cycle finish (state saved) before the next save: one save at a time.
  await Promise.all(ctx.daemon.workers.map((w) => w.idle()));
  return { ms, detectMs, windowMs, requests: control.requests().slice(before) };
}

/** Figure 1: `saves` single saves, rotating over a few files, each with new content. */
async function benchSaves(emu, ctx, saves, log) {
  const latencies = [];
  const detects = [];
  const windows = [];
  const requestsPerSave = [];
  const allRequests = [];
  for (let i = 0; i < saves; i++) {
    const rel = SAVE_FILES[i % SAVE_FILES.length];
    const r = await timedSave(emu, ctx, rel, fileText(`${rel} save ${i}`, 2048));
    latencies.push(r.ms);
    detects.push(r.detectMs);
    windows.push(r.windowMs);
    requestsPerSave.push(r.requests.length);
    allRequests.push(...r.requests);
    // A human does not save twice within a few milliseconds; a short random gap also keeps
    // the saves out of phase with any timer.
    await sleep(20 + Math.random() * 30);
    if ((i + 1) % 50 === 0) log(`  save ${i + 1}/${saves}: median so far ${Math.round(summarize(latencies).median)} ms`);
  }
  // Per-save average by route (the daemon's own status polls fall into some save windows).
  const routes = Object.fromEntries(Object.entries(countByRoute(allRequests)).map(([k, n]) => [k, n / saves]));
  return { latencyMs: summarize(latencies), detectMs: summarize(detects), windowMs: summarize(windows), requestsPerSave: summarize(requestsPerSave), routes };
}

/** Figure 2: one burst of BURST_WRITES writes over BURST_FILES within BURST_SPAN_MS. */
async function burstOnce(emu, ctx, round) {
  const { control } = emu;
  const patchesBefore = control.countRequests((e) => routeOf(e) === ROUTES.patch);
  const finals = new Map();
  const waves = BURST_WRITES / BURST_FILES.length;
  const started = performance.now();
  for (let wave = 0; wave < waves; wave++) {
    // Wave w is due at w * span / waves: the burst spans the whole second. Inside a wave the
    // 50 writes run concurrently, as a branch switch or a formatter run writes them.
    const wait = started + (wave * BURST_SPAN_MS) / waves - performance.now();
    if (wait > 1) await sleep(wait);
    await Promise.all(
      BURST_FILES.map((rel) => {
        const content = fileText(`${rel} burst ${round} wave ${wave}`, 2048);
        finals.set(rel, content);
        return writeFile(join(ctx.home.root, rel), content);
      }),
    );
  }
  const spanMs = performance.now() - started;
  // Wait (bounded) until every final content is on the server.
  const deadline = performance.now() + 20_000;
  let missing = [...finals].filter(([rel, text]) => control.getFiles(ctx.editorId)[rel] !== text);
  while (missing.length > 0 && performance.now() < deadline) {
    await sleep(10);
    missing = missing.filter(([rel, text]) => control.getFiles(ctx.editorId)[rel] !== text);
  }
  const settledMs = performance.now() - started - spanMs;
  // Then stay a while longer: a late extra PATCH still counts against the burst.
  await sleep(DEBOUNCE_MS * 10);
  await Promise.all(ctx.daemon.workers.map((w) => w.idle()));
  const patches = control.countRequests((e) => routeOf(e) === ROUTES.patch) - patchesBefore;
  return { patches, spanMs, settledMs, missing: missing.length };
}

/** Figure 5's CLI one-file push: `mpsync push` after one edit, in a child process. */
async function cliPushOneFile(emu, ctx) {
  const rel = SAVE_FILES[0];
  await writeFile(join(ctx.home.root, rel), fileText(`${rel} cli push`, 2048));
  const { result: exit, requests } = await withRequests(
    emu.control,
    async () => (await spawnCli(["push", "--json"], { cwd: ctx.home.home, env: ctx.home.env })).exited,
  );
  if (exit.code !== 0) throw new Error(`mpsync push exited ${exit.code}: ${exit.stderr.slice(-500)}`);
  return countByRoute(requests);
}

/** Runs figures 1 and 2 (and the push request counts of figure 5). */
export async function benchDaemon(emu, { saves, bursts, log }) {
  const ctx = await startDaemon(emu);
  try {
    log(`save latency: ${saves} saves, debounceMs ${DEBOUNCE_MS}`);
    const save = await benchSaves(emu, ctx, saves, log);
    log(`burst: ${bursts} x ${BURST_WRITES} writes to ${BURST_FILES.length} files in ${BURST_SPAN_MS} ms`);
    const burst = [];
    for (let round = 0; round < bursts; round++) {
      burst.push(await burstOnce(emu, ctx, round));
      log(
        `  burst ${round + 1}: ${burst.at(-1).patches} PATCH, ${burst.at(-1).missing} missing, on server ${Math.round(burst.at(-1).settledMs)} ms after the last write`,
      );
    }
    await ctx.daemon.stop();
    const cliPush = await cliPushOneFile(emu, ctx);
    return { save, burst, cliPush };
  } finally {
    await ctx.daemon.stop().catch(() => undefined);
    await ctx.runtime.close();
    await ctx.home.remove();
  }
}
