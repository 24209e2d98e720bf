#!/usr/bin/env node
/**
 * `npm run soak`: crash safety of the BUILT daemon with real processes, at scale.
 *
 * The emulator runs in this process with 30-80 ms of latency, so a kill lands mid-request.
 * Each run: random local edits and remote changes (web edits, new artifacts, new files) while
 * `mpsync watch --json` works, a `kill -9` at a random moment (0-500 ms), a restart, and a wait
 * for convergence. Then every file is checked: local equals remote, nothing empty or truncated,
 * no conflict markers, state.json parses, and no edit is lost (the last text the script wrote
 * on either side is in the final content, or on the service, or under .mpsync/backups|conflicts).
 *
 * Files are built so that no two writers ever touch neighbouring lines: local edits own the
 * `L` lines, remote edits own the `R` lines, so every concurrent change merges cleanly and any
 * conflict or missing token is the tool's doing. Web edits in place (same artifact) only touch
 * files the run does not edit locally: the API has no compare-and-swap, so a PATCH racing a
 * web edit of the same file cannot be made safe by any client.
 *
 *   node scripts/soak.mjs [--runs 100] [--seed N] [--timeout-ms 30000] [--skip-model] [--keep]
 *
 * Afterwards, when test/model exists, runs `npx vitest run test/model` with MPSYNC_SOAK_RUNS=50000.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile, rename } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createRng, keptTexts, LINES, listFiles, parse, render, seededChoices, sleep, takeRemote } from "./soak-model.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(REPO, "dist", "bin.cjs");
const KEY = "soak-key-0123456789";
const READY_TIMEOUT_MS = 20_000;
const STABLE_CHECKS = 3;
const CHECK_EVERY_MS = 100;

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "100" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    "timeout-ms": { type: "string", default: "30000" },
    "skip-model": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});
const RUNS = Number(args.runs);
const SEED = Number(args.seed);
const CONVERGE_MS = Number(args["timeout-ms"]);

const rnd = createRng(SEED);
const { int, pick } = seededChoices(rnd);

/** The script's own record: what it last wrote on each side, per file. */
const model = new Map(); // name -> { l, r, lastLocal?, lastRemote? }
/** What the runs did, so a green summary is not a vacuous one. */
const stats = { localSaves: 0, localNewFiles: 0, webEdits: 0, newArtifacts: 0, startupKills: 0 };

async function main() {
  if (!existsSync(BIN)) throw new Error('dist/ is missing: run "npm run soak" (it builds first)');
  const { startEmulator } = await import("../dist/emulator/index.js");
  const emu = await startEmulator({ port: 0, keys: [KEY], generationMs: 200, faults: { latencyMs: 50 } });
  const home = await mkdtemp(join(tmpdir(), "mpsync-soak-"));
  const root = join(home, "design");
  const files = {};
  for (let i = 0; i < 6; i++) {
    const name = i < 4 ? `src/file${i}.ts` : `file${i}.ts`;
    const l = Array(LINES).fill("init");
    const r = Array(LINES).fill("init");
    model.set(name, { l, r });
    files[name] = render(name, l, r);
  }
  const { editorId } = emu.control.createDesign(KEY, { files });
  await writeFile(
    join(home, ".syncrc"),
    JSON.stringify({ baseUrl: emu.baseUrl, pollIntervalSec: 0.2, debounceMs: 40, designs: [{ dir: "design", design: editorId }] }),
  );
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, "cfg"),
    XDG_STATE_HOME: join(home, "st"),
    MP_API_KEY: KEY,
    NO_COLOR: "1",
  };
  const world = { emu, editorId, root, home, env };

  console.log(`soak: ${RUNS} runs, seed ${SEED}, folder ${home}`);
  const started = Date.now();
  const failures = [];
  const warnings = [];
  // oneRun replaces the daemon as it kills and restarts it; the holder always names the live one.
  const holder = { daemon: await startDaemon(world) };
  let done = 0;
  for (let run = 1; run <= RUNS; run++) {
    try {
      await oneRun(world, holder, run, warnings);
    } catch (err) {
      failures.push(`run ${run}: ${err.message}`);
      console.log(`  run ${run}: FAIL ${err.message}`);
      if (holder.daemon.alive()) holder.daemon.child.kill("SIGKILL");
      await holder.daemon.exited;
      await takeRemote(world, model);
      const restarted = await startDaemon(world).catch((e) => (failures.push(`restart after run ${run}: ${e.message}`), undefined));
      if (restarted === undefined) break;
      holder.daemon = restarted;
    }
    done = run;
    if (run % 10 === 0) console.log(`  ${run}/${RUNS} runs, ${failures.length} failures, ${Math.round((Date.now() - started) / 1000)} s`);
  }
  const daemon = holder.daemon;
  if (daemon.alive()) {
    daemon.child.kill("SIGTERM");
    const { code } = await withTimeout(daemon.exited, 15_000, "no exit after SIGTERM").catch((err) => ({ code: err.message }));
    if (code !== 0) failures.push(`final SIGTERM: exit ${code}`);
  }
  await emu.close();
  if (!args.keep && failures.length === 0) await rm(home, { recursive: true, force: true });

  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\nsoak summary: ${done} of ${RUNS} runs, ${failures.length} failures, ${warnings.length} warnings, ${secs} s (seed ${SEED})`);
  console.log(
    `  did: ${Object.entries(stats)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ")}; ${model.size} files at the end`,
  );
  for (const w of warnings.slice(0, 20)) console.log(`  warning: ${w}`);
  for (const f of failures.slice(0, 50)) console.log(`  FAIL: ${f}`);
  if (failures.length > 0) console.log(`  folder kept for inspection: ${home}`);
  const modelOk = args["skip-model"] ? true : await runModelTests();
  process.exitCode = failures.length === 0 && modelOk ? 0 : 1;
}

/** One run: edits racing a kill -9, a restart (sometimes killed again while starting), convergence, checks. */
async function oneRun(world, holder, run, warnings) {
  const daemon = holder.daemon;
  world.emu.control.setFaults({ latencyMs: int(30, 80) });
  const webEditable = new Set([...model.keys()].filter(() => rnd() < 0.3));
  const killAfter = int(0, 500);
  const kill = sleep(killAfter).then(async () => {
    daemon.child.kill("SIGKILL");
    await daemon.exited;
  });
  const ops = int(2, 8);
  for (let i = 0; i < ops; i++) {
    await randomOp(world, run, i, webEditable);
    await sleep(int(0, 120));
  }
  await kill;
  if (rnd() < 0.25) {
    // Also kill during start-up: lock takeover and the start-up reconcile are crash points too.
    const early = startDaemon(world, { waitReady: false });
    const d = await early;
    await sleep(int(0, 400));
    d.child.kill("SIGKILL");
    await d.exited;
    stats.startupKills++;
  }
  holder.daemon = await startDaemon(world);
  await checkConverged(world, run, holder.daemon, warnings);
}

async function randomOp(world, run, i, webEditable) {
  const { emu, editorId } = world;
  const names = [...model.keys()];
  const roll = rnd();
  const token = `r${run}o${i}`;
  if (roll < 0.45) {
    // Local save of an existing file: our L line changes, the R lines are whatever is on disk.
    const name = pick(names.filter((n) => !webEditable.has(n)));
    if (name === undefined) return;
    const m = model.get(name);
    const onDisk = parse(name, await readFile(join(world.root, name), "utf8").catch(() => undefined));
    if (onDisk === undefined) return; // not pulled yet (a new remote file); the next op edits it
    m.l = [...m.l];
    m.l[int(0, LINES - 1)] = token;
    m.lastLocal = render(name, m.l, onDisk.r);
    await saveLocal(world.root, name, m.lastLocal);
    stats.localSaves++;
  } else if (roll < 0.55) {
    const name = `local-${token}.ts`;
    const m = { l: Array(LINES).fill(token), r: Array(LINES).fill("init") };
    m.lastLocal = render(name, m.l, m.r);
    model.set(name, m);
    await saveLocal(world.root, name, m.lastLocal);
    stats.localNewFiles++;
  } else if (roll < 0.75) {
    // Web edit in place: only files this run leaves alone locally (see the header).
    const name = pick([...webEditable]);
    if (name === undefined) return;
    const m = model.get(name);
    const remote = parse(name, emu.control.getFiles(editorId)[name]);
    if (remote === undefined) return;
    m.r = [...m.r];
    m.r[int(0, LINES - 1)] = token;
    m.lastRemote = render(name, remote.l, m.r);
    emu.control.editFile(editorId, name, m.lastRemote);
    stats.webEdits++;
  } else {
    // A new active artifact (a generation, or a version picked): R edits, sometimes a new file.
    const current = emu.control.getFiles(editorId);
    const next = { ...current };
    for (const name of names) {
      if (rnd() < 0.5) continue;
      const remote = parse(name, current[name]);
      if (remote === undefined) continue;
      const m = model.get(name);
      m.r = [...m.r];
      m.r[int(0, LINES - 1)] = token;
      next[name] = m.lastRemote = render(name, remote.l, m.r);
    }
    if (rnd() < 0.3) {
      const name = `remote-${token}.ts`;
      const m = { l: Array(LINES).fill("init"), r: Array(LINES).fill(token) };
      next[name] = m.lastRemote = render(name, m.l, m.r);
      model.set(name, m);
    }
    emu.control.setFiles(editorId, next, { newArtifact: true, title: `soak ${token}` });
    stats.newArtifacts++;
  }
}

/** Editors save in place or by write-temp-then-rename; both happen. */
async function saveLocal(root, name, text) {
  const abs = join(root, name);
  if (rnd() < 0.5) return writeFile(abs, text);
  const tmp = `${abs}.tmp.${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, abs);
}

/** Waits until local == remote for every model file, stable over a few checks, then judges. */
async function checkConverged(world, run, daemon, warnings) {
  const deadline = Date.now() + CONVERGE_MS;
  let stable = 0;
  let last = "";
  while (stable < STABLE_CHECKS) {
    const diff = await differences(world);
    last = diff.join("; ");
    stable = diff.length === 0 ? stable + 1 : 0;
    if (Date.now() > deadline) {
      throw new Error(`no convergence in ${CONVERGE_MS} ms: ${last.slice(0, 400)}; daemon stderr: ${daemon.stderr.slice(-3).join(" | ").slice(0, 400)}`);
    }
    await sleep(CHECK_EVERY_MS);
  }
  await judge(world, run, warnings);
}

async function differences(world) {
  const remote = world.emu.control.getFiles(world.editorId);
  const out = [];
  for (const name of model.keys()) {
    const local = await readFile(join(world.root, name), "utf8").catch(() => undefined);
    if (local !== remote[name])
      out.push(
        `${name} local ${local === undefined ? "missing" : `${local.length} chars`} != remote ${remote[name] === undefined ? "missing" : `${remote[name].length} chars`}`,
      );
  }
  return out;
}

async function judge(world, run, warnings) {
  const problems = [];
  const state = await readFile(join(world.root, ".mpsync", "state.json"), "utf8");
  try {
    JSON.parse(state);
  } catch {
    problems.push("state.json does not parse");
  }
  const kept = await keptTexts(world);
  const remote = world.emu.control.getFiles(world.editorId);
  const synced = await listFiles(world.root);
  for (const rel of synced) {
    if (/\.mpsync\.tmp$/.test(rel)) {
      // A write killed between its temp file and the rename: reported once, then removed so
      // later runs judge only their own leftovers.
      problems.push(`temp file of a killed write left in the folder: ${rel}`);
      await rm(join(world.root, rel), { force: true });
    } else if (!model.has(rel)) problems.push(`unexpected file ${rel}`);
  }
  for (const name of Object.keys(remote)) if (!model.has(name)) problems.push(`unexpected remote file ${name}`);
  for (const [name, m] of model) {
    const text = remote[name];
    const got = parse(name, text);
    if (got === undefined) {
      problems.push(`${name} is empty, truncated or has markers (${text === undefined ? "missing" : `${text.length} chars`})`);
      continue;
    }
    const lostLocal = m.l.some((t, i) => got.l[i] !== t);
    const lostRemote = m.r.some((t, i) => got.r[i] !== t);
    for (const [side, lost, lastText] of [
      ["local", lostLocal, m.lastLocal],
      ["remote", lostRemote, m.lastRemote],
    ]) {
      if (!lost) continue;
      if (lastText !== undefined && kept.has(lastText))
        warnings.push(`run ${run}: ${name}: the last ${side} edit was displaced (kept in backups/conflicts/history, not in the file)`);
      else problems.push(`${name}: the last ${side} edit is lost`);
    }
    // Resynchronise the model with what survived so later runs judge only their own edits.
    m.l = got.l;
    m.r = got.r;
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
}

/** Spawns `mpsync watch --json`; resolves once it reported `ready` (unless waitReady is false). */
async function startDaemon(world, { waitReady = true } = {}) {
  const child = spawn(process.execPath, [BIN, "watch", "--json"], { cwd: world.home, env: world.env, stdio: ["ignore", "pipe", "pipe"] });
  const stderr = [];
  let exitCode;
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code: (exitCode = code ?? signal) })));
  const ready = new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.includes('"event":"ready"')) resolve();
    });
    exited.then(({ code }) => reject(new Error(`watch exited (${code}) before ready: ${stderr.slice(-3).join(" | ")}`)));
  });
  ready.catch(() => {});
  createInterface({ input: child.stderr }).on("line", (line) => stderr.push(line));
  const d = { child, stderr, exited, alive: () => exitCode === undefined };
  if (!waitReady) return d;
  await withTimeout(ready, READY_TIMEOUT_MS, "no ready event");
  return d;
}

/** `promise`, or a rejection after `ms` (the timer is cleared either way: no stray rejection). */
async function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function runModelTests() {
  if (!existsSync(join(REPO, "test", "model"))) {
    console.log("model-based test: test/model does not exist yet, skipped");
    return true;
  }
  console.log("model-based test: npx vitest run test/model with MPSYNC_SOAK_RUNS=50000");
  const child = spawn("npx", ["vitest", "run", "test/model"], { cwd: REPO, env: { ...process.env, MPSYNC_SOAK_RUNS: "50000" }, stdio: "inherit" });
  const code = await new Promise((resolve) => child.on("exit", (c) => resolve(c)));
  console.log(`model-based test: exit ${code}`);
  return code === 0;
}

main().catch((err) => {
  console.error(`soak: ${err.stack ?? err}`);
  process.exitCode = 1;
});
