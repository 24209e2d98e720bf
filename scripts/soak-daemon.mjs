#!/usr/bin/env node
/**
 * `npm run soak` (second part; alone: `npm run soak:daemon`): ONE long-running daemon, as people
 * leave `mpsync watch` next to `npm run dev` for days. The real engine, real chokidar
 * and a real folder (a small tmpfs when the script may mount one, so the disk can really fill)
 * against the emulator in this process. For `--minutes` (default 30; MPSYNC_SOAK_MINUTES):
 * rounds of random local saves, new files, web edits in place and new versions, each round
 * awaited to convergence and judged (local == remote, nothing lost, no markers, no temp file),
 * while phases break things: service faults and an outage, a full disk, the wall clock moved
 * back 2 h then forward 3 h (an injected clock: the machine's own is shared), and `.syncrc`
 * edits the daemon must take without a signal. At the end: every event line counted, and any
 * line repeated without a state change in between is a failure.
 *
 * An edit a new version was built without (the version was made from the service's files just
 * before the push landed: no client can prevent it) is "displaced": kept in `.mpsync/backups`,
 * `conflicts` or an older version and said with a `conflict` event. It is counted as a warning;
 * an edit found nowhere is a failure.
 *
 *   node scripts/soak-daemon.mjs [--minutes 30] [--seed N] [--round-timeout-ms 150000] [--keep]
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRng, keptTexts, LINES, listFiles, minutesSoakArgs, parse, render, seededChoices, sleep, takeRemote } from "./soak-model.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const KEY = "soak-daemon-key-0123456789";
// Under frequent failures the daemon's backoff grows to a minute between tries (by design): a
// round may need two of those.
const args = minutesSoakArgs({ minutes: "30", roundTimeoutMs: "150000" });
const { durationMs: DURATION_MS, seed: SEED, roundTimeoutMs: ROUND_TIMEOUT_MS } = args;
const rnd = createRng(SEED);
const { int, pick } = seededChoices(rnd);

/** Phases, as fractions of the run: [start, end). */
const PHASES = {
  faults: [0.15, 0.25],
  outage: [0.3, 0.33],
  diskFull: [0.4, 0.48],
  clockBack: [0.55, 0.55],
  clockForward: [0.65, 0.65],
  syncrc: [0.75, 0.75],
  syncrc2: [0.85, 0.85],
};

const model = new Map(); // name -> { l, r, lastLocal?, lastRemote? }
const warnings = [];
const stats = { resolvedByHand: 0, rounds: 0, localSaves: 0, localNewFiles: 0, webEdits: 0, newArtifacts: 0, convergeMsMax: 0, convergeMsTotal: 0 };
const events = [];

async function main() {
  if (!existsSync(join(REPO, "dist", "daemon", "watch-daemon.js"))) throw new Error('dist/ is missing: run "npm run build" first');
  const { startEmulator } = await import("../dist/emulator/index.js");
  const { WatchDaemon } = await import("../dist/daemon/watch-daemon.js");
  const { Runtime } = await import("../dist/runtime.js");
  const { createSystemClock } = await import("../dist/core/clock.js");
  const emu = await startEmulator({ port: 0, keys: [KEY], generationMs: 200, faults: { latencyMs: 30 } });
  const home = await mkdtemp(join(tmpdir(), "mpsync-soak-daemon-"));
  const root = join(home, "design");
  const disk = await mountSmallDisk(root);
  const files = {};
  for (let i = 0; i < 8; i++) {
    const name = i < 5 ? `src/file${i}.ts` : `file${i}.ts`;
    model.set(name, { l: Array(LINES).fill("init"), r: Array(LINES).fill("init") });
    files[name] = render(name, model.get(name).l, model.get(name).r);
  }
  const { editorId } = emu.control.createDesign(KEY, { files });
  const syncrc = {
    baseUrl: emu.baseUrl,
    pollIntervalSec: 0.2,
    remoteCheckSec: 0.5,
    debounceMs: 60,
    ignore: ["filler*"],
    designs: [{ dir: "design", design: editorId }],
  };
  await writeFile(join(home, ".syncrc"), JSON.stringify(syncrc, null, 2));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, "cfg"), XDG_STATE_HOME: join(home, "st"), MP_API_KEY: KEY };
  // The machine's clock is shared with other processes: the daemon gets one whose wall time jumps.
  const system = createSystemClock();
  let skew = 0;
  const clock = { now: () => Date.now() + skew, monotonic: () => system.monotonic(), sleep: system.sleep };
  const runtime = new Runtime({ cwd: home, env, logLevel: "silent", clock });
  await runtime.prepare();
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: (e) => events.push({ at: Date.now(), ...e }) });
  const world = { emu, editorId, root, home };
  const heapStart = process.memoryUsage().rss;
  console.log(`soak-daemon: ${args.minutes} min, seed ${SEED}, folder ${root}${disk ? " (tmpfs 64 MiB)" : ""}`);
  await daemon.start();

  const started = Date.now();
  const failures = [];
  const done = new Set();
  const due = (phase) => (Date.now() - started) / DURATION_MS >= PHASES[phase][0];
  const over = (phase) => (Date.now() - started) / DURATION_MS >= PHASES[phase][1];
  let round = 0;
  while (Date.now() - started < DURATION_MS) {
    round++;
    try {
      await phaseStep(world, { due, over, done, disk, setSkew: (ms) => (skew += ms), home, syncrc });
      const diskIsFull = done.has("diskFull") && !done.has("diskFull:end");
      // Web edits in place only touch files this round leaves alone locally: the API has no
      // compare-and-swap, so a PATCH racing a web edit of the same file is safe for no client.
      const webEditable = new Set([...model.keys()].filter(() => rnd() < 0.3));
      const ops = int(1, 5);
      for (let i = 0; i < ops; i++) {
        await randomOp(world, round, i, { localAllowed: !diskIsFull, webEditable });
        await sleep(int(0, 150));
      }
      // On a full disk nothing can converge (that is the point): the round only checks the lines.
      if (!diskIsFull) await converge(world, round);
    } catch (err) {
      failures.push(`round ${round}: ${err.message}`);
      console.log(`  round ${round}: FAIL ${err.message.slice(0, 300)}`);
      await takeRemote(world, model);
    }
    if (round % 25 === 0)
      console.log(
        `  ${Math.round((Date.now() - started) / 1000)} s: ${round} rounds, ${failures.length} failures, ${events.length} events, ${await backupsSaid(root)}`,
      );
  }
  // Whatever phase the clock cut short ends now, so the last judgement sees a healthy world.
  emu.control.setFaults({ errorRate: 0, latencyMs: 30 });
  if (disk) await rm(join(root, "filler"), { force: true });
  try {
    await converge(world, "final");
  } catch (err) {
    failures.push(`final: ${err.message}`);
  }
  await daemon.stop();
  const backups = await backupsSaid(root);
  const repeats = repeatedLines();
  failures.push(...repeats.map((r) => `repeated line: ${r}`));
  const temps = (await listFiles(root, true)).filter((p) => p.endsWith(".mpsync.tmp"));
  if (temps.length > 0) failures.push(`temp files left: ${temps.join(", ")}`);
  await runtime.close();
  await emu.close();
  if (disk) execFileSync("umount", ["-l", root]);
  if (!args.keep && failures.length === 0) await rm(home, { recursive: true, force: true });
  report({ started, round, failures, heapStart, phasesDone: [...done], backups });
  process.exitCode = failures.length === 0 ? 0 : 1;
}

/** Starts and ends the phases that break things, each once, at its point of the run. */
async function phaseStep(world, p) {
  const { emu } = world;
  const once = (name) => (p.done.has(name) ? false : (p.done.add(name), true));
  if (p.due("faults") && once("faults")) emu.control.setFaults({ errorRate: 0.2, latencyMs: 30 });
  if (p.over("faults") && p.done.has("faults") && once("faults:end")) emu.control.setFaults({ errorRate: 0, latencyMs: 30 });
  if (p.due("outage") && once("outage")) {
    // Nothing converges during an outage: it ends on a timer, while the round waits for it.
    emu.control.setFaults({ errorRate: 1, latencyMs: 30 });
    const outageMs = Math.max(3000, (PHASES.outage[1] - PHASES.outage[0]) * DURATION_MS);
    setTimeout(() => (p.done.add("outage:end"), emu.control.setFaults({ errorRate: 0, latencyMs: 30 })), outageMs);
  }
  if (p.disk && p.due("diskFull") && once("diskFull")) await fillDisk(join(world.root, "filler"));
  if (p.disk && p.over("diskFull") && p.done.has("diskFull") && once("diskFull:end")) await rm(join(world.root, "filler"), { force: true });
  if (p.due("clockBack") && once("clockBack")) p.setSkew(-2 * 3600_000);
  if (p.due("clockForward") && once("clockForward")) p.setSkew(3 * 3600_000);
  if (p.due("syncrc") && once("syncrc")) await saveSyncrc(p.home, { ...p.syncrc, debounceMs: 90, pollIntervalSec: 0.3 });
  if (p.due("syncrc2") && once("syncrc2")) await saveSyncrc(p.home, { ...p.syncrc, debounceMs: 60, pollIntervalSec: 0.2, concurrency: 2 });
}

async function saveSyncrc(home, config) {
  await writeFile(join(home, ".syncrc.tmp"), JSON.stringify(config, null, 2));
  await rename(join(home, ".syncrc.tmp"), join(home, ".syncrc"));
}

async function randomOp(world, round, i, { localAllowed, webEditable }) {
  const { emu, editorId } = world;
  const names = [...model.keys()];
  const token = `r${round}o${i}`;
  const roll = rnd();
  if (localAllowed && roll < 0.4) {
    const name = pick(names.filter((n) => !webEditable.has(n)));
    if (name === undefined) return;
    // Read and written in one turn of this process's event loop, which the daemon shares: an
    // editor shows what is on disk, so a user never saves over a pull they did not see (an
    // await between the two let the soak itself revert pulled lines). The daemon's own
    // check-then-replace window is still raced: its reads go through the thread pool.
    const path = join(world.root, name);
    const onDisk = parse(name, existsSync(path) ? readFileSync(path, "utf8") : undefined);
    if (onDisk === undefined) return;
    const m = model.get(name);
    m.l = [...m.l];
    m.l[int(0, LINES - 1)] = token;
    m.lastLocal = render(name, m.l, onDisk.r);
    writeFileSync(path, m.lastLocal);
    stats.localSaves++;
  } else if (localAllowed && roll < 0.5) {
    const name = `local-${token}.ts`;
    const m = { l: Array(LINES).fill(token), r: Array(LINES).fill("init") };
    m.lastLocal = render(name, m.l, m.r);
    model.set(name, m);
    await writeFile(join(world.root, name), m.lastLocal);
    stats.localNewFiles++;
  } else if (roll < 0.8) {
    const name = pick([...webEditable]);
    if (name === undefined) return;
    const remote = parse(name, emu.control.getFiles(editorId)[name]);
    if (remote === undefined) return;
    const m = model.get(name);
    m.r = [...remote.r];
    m.r[int(0, LINES - 1)] = token;
    m.lastRemote = render(name, remote.l, m.r);
    emu.control.editFile(editorId, name, m.lastRemote);
    stats.webEdits++;
  } else {
    const current = emu.control.getFiles(editorId);
    const next = { ...current };
    for (const name of names) {
      const remote = parse(name, current[name]);
      if (remote === undefined || rnd() < 0.6) continue;
      const m = model.get(name);
      m.r = [...remote.r];
      m.r[int(0, LINES - 1)] = token;
      next[name] = m.lastRemote = render(name, remote.l, m.r);
    }
    emu.control.setFiles(editorId, next, { newArtifact: true, title: `soak ${token}` });
    stats.newArtifacts++;
  }
}

/** Waits until local == remote for every model file (stable over 3 checks), then judges. */
async function converge(world, round) {
  const started = Date.now();
  let stable = 0;
  let last = "";
  while (stable < 3) {
    const remote = world.emu.control.getFiles(world.editorId);
    const diff = [];
    for (const name of model.keys()) {
      const local = await readFile(join(world.root, name), "utf8").catch(() => undefined);
      if (local === remote[name]) continue;
      diff.push(name);
      // A conflict said with markers waits for its user: resolve it as one would, taking
      // theirs (the local side stays in .mpsync/conflicts/, and judge() checks it is there).
      const said = events.some((e) => e.event === "conflict" && e.unresolved === true && (e.files ?? []).includes(name));
      if (said && local?.includes("<<<<<<< ") === true && remote[name] !== undefined) {
        await writeFile(join(world.root, name), remote[name]);
        stats.resolvedByHand++;
      }
    }
    last = diff.join(", ");
    stable = diff.length === 0 ? stable + 1 : 0;
    if (Date.now() - started > ROUND_TIMEOUT_MS)
      throw new Error(
        `no convergence in ${ROUND_TIMEOUT_MS} ms: ${last}; last events: ${events
          .slice(-3)
          .map((e) => `${e.event}:${e.message}`)
          .join(" | ")}`,
      );
    await sleep(100);
  }
  const ms = Date.now() - started;
  stats.rounds++;
  stats.convergeMsMax = Math.max(stats.convergeMsMax, ms);
  stats.convergeMsTotal += ms;
  await judge(world, round);
}

/**
 * Every model file whole on the service, with every token either side last wrote, or the
 * last text kept where the user finds it (a warning: displaced). The model then follows.
 */
async function judge(world, round) {
  const remote = world.emu.control.getFiles(world.editorId);
  const kept = await keptTexts(world);
  const problems = [];
  for (const [name, m] of model) {
    const got = parse(name, remote[name]);
    if (remote[name] === undefined && [m.lastLocal, m.lastRemote].some((t) => t !== undefined && kept.has(t))) {
      // A new file pushed just after a new version was made without it: removed with that
      // version, its text backed up and said (README, "Recovery").
      warnings.push(`round ${round}: ${name}: removed by a version made just before its push (kept, and said)`);
      model.delete(name);
      continue;
    }
    if (got === undefined) {
      problems.push(`${name} is missing, truncated or has markers`);
      continue;
    }
    const lost = [
      ["local", m.l.some((t, i) => got.l[i] !== t), m.lastLocal],
      ["remote", m.r.some((t, i) => got.r[i] !== t), m.lastRemote],
    ];
    for (const [side, isLost, lastText] of lost) {
      if (!isLost) continue;
      if (lastText !== undefined && kept.has(lastText)) warnings.push(`round ${round}: ${name}: the last ${side} edit was displaced (kept, and said)`);
      else problems.push(`${name}: the last ${side} edit is lost`);
    }
    Object.assign(m, { l: got.l, r: got.r });
  }
  if (problems.length > 0) {
    // What the daemon said of those files, to tell a race from a bug without a re-run.
    for (const name of model.keys()) {
      if (!problems.some((p) => p.startsWith(`${name}`))) continue;
      const said = events.filter((e) => JSON.stringify(e).includes(name)).slice(-8);
      for (const e of said) console.log(`    ${name}: ${new Date(e.at).toISOString().slice(11, 23)} ${e.event} ${String(e.message ?? "").slice(0, 160)}`);
    }
    throw new Error(`round ${round}: ${problems.join("; ")}`);
  }
}

/**
 * Lines said again with no state change in between: the same error, halt or notice (by event,
 * code, folder and message) twice, with no `RESUMED` or `ready` of that folder between them.
 */
function repeatedLines() {
  const said = new Map(); // dir -> Set of keys said since its last state change
  const repeats = [];
  for (const e of events) {
    const dir = e.dir ?? "*";
    if (e.code === "RESUMED" || e.event === "ready" || e.event === "pushed" || e.event === "pulled") {
      said.set(dir, new Set());
      if (dir === "*") said.clear();
      continue;
    }
    if (!["error", "halted", "notice"].includes(e.event) || e.code === "RELOADED") continue;
    const key = `${e.event}|${e.code ?? ""}|${e.message}`;
    const set = said.get(dir) ?? new Set();
    if (set.has(key)) repeats.push(`${dir}: ${e.event} ${e.code ?? ""} ${e.message}`.slice(0, 200));
    set.add(key);
    said.set(dir, set);
  }
  return repeats;
}

function report({ started, round, failures, heapStart, phasesDone, backups }) {
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const byName = {};
  for (const e of events) {
    const k = e.code === undefined ? e.event : `${e.event}:${e.code}`;
    byName[k] = (byName[k] ?? 0) + 1;
  }
  console.log(`\nsoak-daemon summary: ${secs} s, ${round} rounds (${stats.rounds} converged), ${failures.length} failures (seed ${SEED})`);
  console.log(
    `  did: ${stats.localSaves} local saves, ${stats.localNewFiles} new local files, ${stats.webEdits} web edits, ${stats.newArtifacts} new versions; phases: ${phasesDone.join(", ")}`,
  );
  console.log(`  convergence per round: mean ${Math.round(stats.convergeMsTotal / Math.max(1, stats.rounds))} ms, max ${stats.convergeMsMax} ms`);
  console.log(
    `  events: ${Object.entries(byName)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  console.log(`  ${stats.resolvedByHand} conflicts with markers resolved by hand (taking theirs)`);
  console.log(`  ${backups} at the end (counted before the tmpfs goes)`);
  console.log(`  ${warnings.length} displaced edits (kept and said: a version built without a push that landed a moment later)`);
  console.log(
    `  rss: ${Math.round(heapStart / 1e6)} MB at start, ${Math.round(process.memoryUsage().rss / 1e6)} MB at the end (daemon and emulator in one process)`,
  );
  for (const f of failures.slice(0, 50)) console.log(`  FAIL: ${f}`);
}

/** "N backup folders, M files" under `.mpsync/backups`: a write path that backs up too often fills the small disk. */
async function backupsSaid(root) {
  const dir = join(root, ".mpsync", "backups");
  const folders = await readdir(dir).catch(() => []);
  let files = 0;
  for (const f of folders) files += (await listFiles(join(dir, f), true)).length;
  return `${folders.length} backup folders, ${files} files`;
}

/** Mounts a 64 MiB tmpfs on `dir` when allowed (root), so the disk can really fill; false otherwise. */
async function mountSmallDisk(dir) {
  await mkdir(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", dir], { stdio: "pipe" });
    return true;
  } catch {
    console.log("soak-daemon: cannot mount a tmpfs (not root?): the full-disk phase is left out");
    return false;
  }
}

/** Writes `path` until not one more byte fits (large chunks, then single bytes). */
async function fillDisk(path) {
  const handle = await open(path, "w");
  try {
    for (const size of [64 * 1024, 512, 1]) {
      try {
        for (;;) await handle.write(Buffer.alloc(size, 1));
      } catch (err) {
        if (err.code !== "ENOSPC") throw err;
      }
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(`soak-daemon: ${err.stack ?? err}`);
  process.exitCode = 1;
});
