#!/usr/bin/env node
/**
 * `npm run soak:writers`: TWO long-running daemons on one design, as a team runs them, plus the
 * web editor and generations, for `--minutes` (default 20). Each daemon is the real engine with
 * real chokidar on its own folder, against the emulator in this process; each has a clock of its
 * own whose wall time this script steps (+1 day, -2 h, +40 s, back), while faults drop PATCHes
 * after they were applied and hold PATCHes to apply them late.
 *
 * A model file has three sections of lines, each owned by one writer (A's folder, B's folder,
 * the web editor), fenced apart so concurrent edits always merge cleanly. After every round the
 * script waits until both folders equal the service and no PATCH came for longer than the race
 * window (so a merge-back would have shown), then judges:
 * - lost: a writer's last token is gone and its text is nowhere (backups, conflicts, versions);
 * - hidden: it is gone, kept, but no event of either daemon named the file this round;
 * - a decision (B rewrites a line of A's it has on disk, after A's push was confirmed) stands:
 *   no PATCH back from A, nothing said by A;
 * - a prompt sent after every push was answered, and a version chosen with `checkout`: no
 *   conflict event from either daemon;
 * - ping-pong: a round that never goes quiet fails after `--round-timeout-ms`.
 * An edit displaced by a version built without it (a new version made the moment a push lands)
 * is counted apart: kept and said is what the README promises for it.
 *
 *   node scripts/soak-writers.mjs [--minutes 20] [--seed N] [--round-timeout-ms 120000] [--keep]
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRng, minutesSoakArgs, seededChoices, sleep } from "./soak-model.mjs";
import { judgeRound, LINES, parse, render, SECTIONS } from "./soak-writers-model.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const KEY = "soak-writers-key-0123456789";
const args = minutesSoakArgs({ minutes: "20", roundTimeoutMs: "120000" });
const { durationMs: DURATION_MS, seed: SEED, roundTimeoutMs: ROUND_TIMEOUT_MS } = args;
const rnd = createRng(SEED);
const { int, pick } = seededChoices(rnd);
const run = promisify(execFile);

/** Longer than the race window and the confirming read after it (sync/other-writers.ts). */
const QUIET_MS = 7_000;
/** The emulator's latency per request: a near service. */
const LATENCY_MS = 20;
const FILES = 6;

/** Wall-clock steps, as fractions of the run: [when, which daemon, step]. */
const CLOCK_STEPS = [
  [0.2, "A", 24 * 3600_000],
  [0.35, "B", -2 * 3600_000],
  [0.5, "A", -24 * 3600_000 - 40_000],
  [0.65, "B", 2 * 3600_000 + 40_000],
  [0.8, "A", 40_000],
];
/** Phases of faults, as fractions of the run: [start, end). */
const FAULTS = [0.25, 0.75];

const model = new Map(); // name -> { a: [], b: [], w: [] }
const stats = {
  rounds: 0,
  saves: { A: 0, B: 0 },
  webEdits: 0,
  newVersions: 0,
  decisions: 0,
  decisionsInWindow: 0,
  staleTabs: 0,
  staleTabsSaid: 0,
  prompts: 0,
  checkouts: 0,
  droppedAfterApply: 0,
  lateApplied: 0,
  displaced: 0,
  lost: 0,
  hidden: 0,
  falseWarnings: 0,
  decisionsUndone: 0,
  patches: 0,
  quietMsMax: 0,
  quietMsTotal: 0,
};
const failures = [];

async function main() {
  if (!existsSync(join(REPO, "dist", "daemon", "watch-daemon.js"))) throw new Error('dist/ is missing: run "npm run build" first');
  const { startEmulator } = await import("../dist/emulator/index.js");
  const emu = await startEmulator({ port: 0, keys: [KEY], generationMs: 400, faults: { latencyMs: LATENCY_MS } });
  const files = {};
  for (let i = 0; i < FILES; i++) {
    const name = i < 3 ? `src/file${i}.ts` : `file${i}.ts`;
    const m = Object.fromEntries(SECTIONS.map((s) => [s, Array(LINES).fill("init")]));
    model.set(name, m);
    files[name] = render(name, m);
  }
  const { scaffoldFiles } = await import("../dist/emulator/scaffold.js");
  files["App.tsx"] = scaffoldFiles("soak writers").get("App.tsx");
  const { editorId } = emu.control.createDesign(KEY, { files, name: "soak writers" });
  const base = await mkdtemp(join(tmpdir(), "mpsync-soak-writers-"));
  const A = await startDaemon("A", join(base, "a"), emu, editorId);
  const B = await startDaemon("B", join(base, "b"), emu, editorId);
  const world = { emu, editorId, A, B };
  console.log(`soak-writers: ${args.minutes} min, seed ${SEED}, folders ${A.root} and ${B.root}`);
  await settle(world, "start");

  const started = Date.now();
  const progress = () => (Date.now() - started) / DURATION_MS;
  const stepped = new Set();
  let round = 0;
  while (progress() < 1) {
    round++;
    for (const [at, who, ms] of CLOCK_STEPS)
      if (progress() >= at && !stepped.has(at)) {
        stepped.add(at);
        world[who].skew.ms += ms;
        console.log(`  wall clock of ${who} stepped ${ms > 0 ? "+" : ""}${Math.round(ms / 1000)} s`);
      }
    const faults = progress() >= FAULTS[0] && progress() < FAULTS[1];
    // A fault queued last round and not met, or a request still held, belongs to that round:
    // a held request applied in a later round would erase writes no daemon has read, which no
    // client of this API can see (README, known limits).
    await emu.control.applyLateWrites();
    emu.control.clearFaults();
    emu.control.setFaults({ latencyMs: LATENCY_MS });
    const since = { A: A.events.length, B: B.events.length, patches: patchCount(emu), at: Date.now() };
    try {
      const kind = round % 9 === 4 ? "prompt" : round % 13 === 6 ? "checkout" : round % 5 === 2 ? "decision" : round % 7 === 3 ? "staleTab" : "ops";
      if (kind === "prompt") await promptRound(world, round, since);
      else if (kind === "checkout") await checkoutRound(world, since);
      else if (kind === "decision") await decisionRound(world, round, since);
      else if (kind === "staleTab") await staleTabRound(world, round, since);
      else await opsRound(world, round, faults);
      await settle(world, round);
      judge(world, round, since, kind);
    } catch (err) {
      failures.push(`round ${round}: ${err.message}`);
      console.log(`  round ${round}: FAIL ${err.message.slice(0, 400)}`);
      await adoptRemote(world);
    }
    if (round % 10 === 0)
      console.log(`  ${Math.round((Date.now() - started) / 1000)} s: ${round} rounds, ${failures.length} failures, ${stats.patches} PATCHes`);
  }
  await emu.control.applyLateWrites();
  emu.control.clearFaults();
  try {
    await settle(world, "final");
    judge(world, "final", { A: A.events.length, B: B.events.length, patches: patchCount(emu) }, "ops");
  } catch (err) {
    failures.push(`final: ${err.message}`);
  }
  // Bounded after quiet: a last long look for any PATCH nobody asked for.
  const before = patchCount(emu);
  await sleep(3 * QUIET_MS);
  if (patchCount(emu) !== before) failures.push(`${patchCount(emu) - before} PATCHes after the end, with nothing changed`);
  for (const d of [A, B]) await d.stop();
  await emu.close();
  report(started, round, world);
  // A poll claim may still be settling its file as the daemons stop: the folder goes after the report.
  if (!args.keep && failures.length === 0)
    await rm(base, { recursive: true, force: true, maxRetries: 5 }).catch((err) => console.log(`  (left ${base}: ${err.code})`));
  process.exitCode = failures.length === 0 ? 0 : 1;
}

/** One daemon with its own home, folder and clock (its wall time steps; its monotonic time is the machine's). */
async function startDaemon(name, home, emu, editorId) {
  const { WatchDaemon } = await import("../dist/daemon/watch-daemon.js");
  const { Runtime } = await import("../dist/runtime.js");
  const { createSystemClock } = await import("../dist/core/clock.js");
  const root = join(home, "design");
  await mkdir(root, { recursive: true });
  const syncrc = { baseUrl: emu.baseUrl, pollIntervalSec: 0.2, remoteCheckSec: 0.5, debounceMs: 60, designs: [{ dir: "design", design: editorId }] };
  await writeFile(join(home, ".syncrc"), JSON.stringify(syncrc, null, 2));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, "cfg"), XDG_STATE_HOME: join(home, "st"), MP_API_KEY: KEY, PATH: process.env.PATH };
  const system = createSystemClock();
  const skew = { ms: 0 };
  const clock = { now: () => Date.now() + skew.ms, monotonic: () => system.monotonic(), sleep: system.sleep };
  const runtime = new Runtime({ cwd: home, env, logLevel: "silent", clock });
  await runtime.prepare();
  const events = [];
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: (e) => events.push({ at: Date.now(), who: name, ...e }) });
  await daemon.start();
  return {
    name,
    home,
    root,
    env,
    skew,
    events,
    stop: async () => {
      await daemon.stop();
      await runtime.close();
    },
  };
}

/**
 * Random saves in both folders, web edits in place and new versions. Each file has its writers
 * for the round: a web edit in place never races a save of the same file, because a web edit
 * landing between a daemon's read and its PATCH is lost for any client of an API without
 * compare-and-swap (README, known limits; `npm run bench` measures that window). Both folders
 * may save one file: their PATCHes race, and the rule of other-writers.ts must merge them.
 * With faults, PATCHes are dropped after the service applied them, or held and applied late;
 * a late PATCH can only carry files its folder alone saves this round (one held for longer
 * than a teammate's read-back is beyond what either daemon can see).
 */
async function opsRound(world, round, faults) {
  const { emu, editorId } = world;
  const writers = new Map(
    [...model.keys()].map((name) => {
      const roll = rnd();
      return [name, roll < 0.3 ? ["A"] : roll < 0.55 ? ["B"] : roll < 0.7 && !faults ? ["A", "B"] : ["web"]];
    }),
  );
  const ops = int(1, 5);
  for (let i = 0; i < ops; i++) {
    const token = `r${round}o${i}`;
    if (faults && rnd() < 0.25) {
      const late = rnd() < 0.5;
      emu.control.failNext({ method: "PATCH" }, late ? { drop: true, late: true } : { drop: true, after: true }, 1);
      if (late) {
        stats.lateApplied++;
        // The service applies the held request a moment later, after the client has moved on.
        setTimeout(() => void emu.control.applyLateWrites(), int(500, 4000));
      } else stats.droppedAfterApply++;
    }
    const name = pick([...model.keys()]);
    const who = pick(writers.get(name));
    if (rnd() < 0.12) newVersion(world, token);
    else if (who !== "web") save(world[who], name, token);
    else {
      const remote = parse(name, emu.control.getFiles(editorId)[name]);
      if (remote === undefined) continue;
      const line = int(0, LINES - 1);
      remote.w[line] = model.get(name).w[line] = `w${token}`;
      emu.control.editFile(editorId, name, render(name, remote));
      stats.webEdits++;
    }
    await sleep(int(0, 300));
  }
}

/** A version made from the service's files as they are: what a generation already running does. */
function newVersion(world, token) {
  const { emu, editorId } = world;
  const current = emu.control.getFiles(editorId);
  const next = { ...current };
  for (const name of model.keys()) {
    const remote = parse(name, current[name]);
    if (remote === undefined || rnd() < 0.5) continue;
    const line = int(0, LINES - 1);
    remote.w[line] = model.get(name).w[line] = `v${token}`;
    next[name] = render(name, remote);
  }
  emu.control.setFiles(editorId, next, { newArtifact: true, title: `soak ${token}` });
  stats.newVersions++;
}

/**
 * A web editor tab opened before A's push saves after it: its text lacks A's line. That write
 * could not have seen A's edit (it arrives in the moments after A's answer without it): A's
 * daemon merges its edit back, and says so.
 */
async function staleTabRound(world, round, since) {
  const { emu, editorId, A } = world;
  const name = pick([...model.keys()]);
  const stale = parse(name, emu.control.getFiles(editorId)[name]);
  if (stale === undefined || !save(A, name, `s${round}`)) return;
  const token = model.get(name).a.find((t) => t === `as${round}`);
  await until(() => emu.control.getFiles(editorId)[name]?.includes(` ${token}\n`) === true, 30_000, `A's push of ${name}`);
  await sleep(int(0, 2000));
  const line = int(0, LINES - 1);
  stale.w[line] = model.get(name).w[line] = `t${round}`;
  emu.control.editFile(editorId, name, render(name, stale));
  since.staleTab = name;
  stats.staleTabs++;
}

/**
 * A save of one line of the folder's own section, as an editor makes it: what is on disk with
 * one line changed, read and written in one turn of the event loop (the daemons share it).
 */
function save(d, name, token) {
  const path = join(d.root, name);
  const onDisk = parse(name, existsSync(path) ? readFileSync(path, "utf8") : undefined);
  if (onDisk === undefined) return false;
  const side = d.name === "A" ? "a" : "b";
  const line = int(0, LINES - 1);
  onDisk[side][line] = model.get(name)[side][line] = `${side}${token}`;
  writeFileSync(path, render(name, onDisk));
  stats.saves[d.name]++;
  return true;
}

/**
 * B rewrites a line of A's that B's folder shows, A's latest: a decision. Most rounds wait
 * until A's push is long confirmed (the round before ended quiet); some make it in the moments
 * after A's push, where no daemon can tell a decision from a race: there only "no ping-pong and
 * nothing lost unsaid" is asked.
 */
async function decisionRound(world, round, since) {
  const { A, B } = world;
  const inWindow = rnd() < 0.3;
  const name = pick([...model.keys()]);
  const line = int(0, LINES - 1);
  if (inWindow) {
    const pathA = join(A.root, name);
    const onA = parse(name, readFileSync(pathA, "utf8"));
    if (onA === undefined) return;
    onA.a[line] = model.get(name).a[line] = `ar${round}`;
    writeFileSync(pathA, render(name, onA));
    stats.saves.A++;
    await until(() => parse(name, readSafe(join(B.root, name)))?.a[line] === `ar${round}`, 30_000, `B pulls ${name}`);
    stats.decisionsInWindow++;
  } else stats.decisions++;
  const pathB = join(B.root, name);
  const onB = parse(name, readFileSync(pathB, "utf8"));
  if (onB === undefined) return;
  onB.a[line] = model.get(name).a[line] = `d${round}`;
  writeFileSync(pathB, render(name, onB));
  since.decision = { name, line, token: `d${round}`, inWindow };
}

/** A headline edit pushed and answered, then a prompt from a folder: the generation rewrites that line, as asked. */
async function promptRound(world, round, since) {
  const { emu, editorId } = world;
  const d = rnd() < 0.5 ? world.A : world.B;
  const path = join(d.root, "App.tsx");
  const app = readSafe(path);
  if (app === undefined) return;
  const edited = app.replace(/(<h1 className="[^"]*">)\{[^}]*\}/, `$1{"edited r${round}"}`);
  writeFileSync(path, edited);
  await until(() => emu.control.getFiles(editorId)["App.tsx"] === edited && patchCount(emu) > since.patches, 30_000, "the headline edit lands");
  await quiet(world);
  since.A = world.A.events.length;
  since.B = world.B.events.length;
  const prompt = `make headline ${round} bold`;
  await cli(d, ["prompt", prompt, "--wait"]);
  since.prompt = { who: d.name, headline: `Make headline ${round} bold` };
  stats.prompts++;
}

/** A version chosen by the user: `checkout` of an older one, from a folder. It stands. */
async function checkoutRound(world, since) {
  const versions = world.emu.control.getDesign(world.editorId).versions;
  if (versions.length < 3) return;
  const d = rnd() < 0.5 ? world.A : world.B;
  const v = versions[int(Math.max(0, versions.length - 4), versions.length - 2)];
  await quiet(world);
  since.A = world.A.events.length;
  since.B = world.B.events.length;
  await cli(d, ["checkout", v.versionLabel]);
  since.checkout = true;
  stats.checkouts++;
}

async function cli(d, argv) {
  try {
    await run(process.execPath, [join(REPO, "dist", "bin.js"), ...argv], { cwd: d.home, env: d.env, timeout: 60_000 });
  } catch (err) {
    throw new Error(
      `mpsync ${argv.join(" ")} in ${d.name}: ${String(err.stderr ?? err.message)
        .trim()
        .slice(0, 300)}`,
    );
  }
}

/** Both folders equal the service for every model file and App.tsx, and no PATCH came for QUIET_MS. */
async function settle(world, round) {
  const started = Date.now();
  for (;;) {
    const remote = world.emu.control.getFiles(world.editorId);
    const differ = [];
    for (const d of [world.A, world.B])
      for (const name of [...model.keys(), "App.tsx"]) {
        const local = readSafe(join(d.root, name));
        if (local === remote[name]) continue;
        differ.push(`${d.name}:${name}`);
        // A conflict said with markers waits for its user, who takes theirs (the local side stays in conflicts/).
        if (local?.includes("<<<<<<< ") === true && remote[name] !== undefined) writeFileSync(join(d.root, name), remote[name]);
      }
    const lastPatch = lastPatchAt(world.emu);
    if (differ.length === 0 && Date.now() - lastPatch >= QUIET_MS) break;
    if (Date.now() - started > ROUND_TIMEOUT_MS)
      throw new Error(`round ${round} never went quiet (ping-pong or stuck): ${differ.join(", ") || "PATCHes keep coming"}; ${lastEvents(world)}`);
    await sleep(200);
  }
  const ms = Date.now() - started;
  stats.quietMsMax = Math.max(stats.quietMsMax, ms);
  stats.quietMsTotal += ms;
}

/** Waits for QUIET_MS without a PATCH (every push answered and confirmed). */
async function quiet(world) {
  while (Date.now() - lastPatchAt(world.emu) < QUIET_MS) await sleep(200);
}

function judge(world, round, since, kind) {
  const { emu, editorId, A, B } = world;
  const remote = emu.control.getFiles(editorId);
  const said = [...A.events.slice(since.A), ...B.events.slice(since.B)];
  const kept = keptTexts(world);
  const verdict = judgeRound({ model, remote, said, kept, decision: since.decision, adopt: kind === "checkout" });
  stats.rounds++;
  stats.patches += patchCount(emu) - since.patches;
  stats.displaced += verdict.displaced.length;
  stats.lost += verdict.lost.length;
  stats.hidden += verdict.hidden.length;
  stats.decisionsUndone += verdict.decisionUndone ? 1 : 0;
  const problems = [...verdict.lost.map((l) => `lost ${l}`), ...verdict.hidden.map((h) => `hidden ${h}`)];
  if (verdict.decisionUndone) problems.push(`B's decision on ${since.decision.name} was undone`);
  if (since.decision !== undefined && !since.decision.inWindow) {
    const fromA = A.events.slice(since.A).filter((e) => JSON.stringify(e).includes(since.decision.name) && ["conflict", "notice"].includes(e.event));
    if (fromA.length > 0) problems.push(`A spoke of B's decision: ${fromA.map((e) => e.message).join(" | ")}`);
  }
  if (since.staleTab !== undefined) {
    const told = A.events.slice(since.A).filter((e) => ["conflict", "notice"].includes(e.event) && JSON.stringify(e).includes(since.staleTab));
    stats.staleTabsSaid += told.length > 0 ? 1 : 0;
  }
  if (kind === "prompt" || kind === "checkout") {
    const warned = said.filter((e) => e.event === "conflict");
    stats.falseWarnings += warned.length;
    if (warned.length > 0) problems.push(`a conflict warning on a ${kind}: ${warned.map((e) => `${e.who}: ${e.message}`).join(" | ")}`);
    if (kind === "prompt" && !remote["App.tsx"]?.includes(since.prompt.headline)) problems.push(`the generation's headline is not on the service`);
  }
  if (problems.length > 0) {
    // What each daemon did with those files this round, to tell a race from a bug without a re-run.
    const names = [...model.keys()].filter((n) => problems.some((p) => p.includes(n)));
    for (const e of said.filter((x) => names.some((n) => JSON.stringify(x).includes(n))))
      console.log(`    ${new Date(e.at).toISOString().slice(11, 23)} ${e.who} ${e.event} ${String(e.message ?? "").slice(0, 200)}`);
    for (const r of emu.control.requests().filter((x) => x.at >= since.at && x.method !== "GET"))
      console.log(`    ${new Date(r.at).toISOString().slice(11, 23)} service ${r.method} ${r.path} ${r.status}${r.fault ? ` (${r.fault})` : ""}`);
    throw new Error(problems.join("; "));
  }
}

/** Every text kept where a user finds it: both folders' backups and conflicts, and every version. */
function keptTexts(world) {
  const texts = new Set();
  for (const v of world.emu.control.getDesign(world.editorId).versions)
    for (const text of Object.values(world.emu.control.getFiles(world.editorId, v.artifactId))) texts.add(text);
  for (const d of [world.A, world.B]) for (const text of listKept(d.root)) texts.add(text);
  return texts;
}

function listKept(root) {
  try {
    const out = [];
    const walk = (dir) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const abs = join(dir, e.name);
        if (e.isDirectory()) walk(abs);
        else if (!e.name.endsWith(".json")) out.push(readFileSync(abs, "utf8"));
      }
    };
    for (const sub of ["backups", "conflicts"]) if (existsSync(join(root, ".mpsync", sub))) walk(join(root, ".mpsync", sub));
    return out;
  } catch {
    return [];
  }
}

/** After a failed round, the model takes the service's files so later rounds judge only their own edits. */
async function adoptRemote(world) {
  await sleep(QUIET_MS);
  const remote = world.emu.control.getFiles(world.editorId);
  for (const name of model.keys()) {
    const got = parse(name, remote[name]);
    if (got !== undefined) model.set(name, got);
    for (const d of [world.A, world.B])
      if (remote[name] !== undefined && readSafe(join(d.root, name)) !== remote[name]) await writeFile(join(d.root, name), remote[name]);
  }
}

const patchCount = (emu) => emu.control.countRequests((e) => e.method === "PATCH");
function lastPatchAt(emu) {
  const log = emu.control.requests();
  for (let i = log.length - 1; i >= 0; i--) if (log[i].method === "PATCH") return log[i].at;
  return 0;
}
const readSafe = (path) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
};
const lastEvents = (world) =>
  [...world.A.events.slice(-3), ...world.B.events.slice(-3)].map((e) => `${e.who} ${e.event}: ${String(e.message ?? e.files ?? "").slice(0, 120)}`).join(" | ");

async function until(check, timeoutMs, what) {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}

function report(started, round, world) {
  const secs = ((Date.now() - started) / 1000).toFixed(0);
  const count = (d) => {
    const by = {};
    for (const e of d.events)
      by[e.code === undefined ? e.event : `${e.event}:${e.code}`] = (by[e.code === undefined ? e.event : `${e.event}:${e.code}`] ?? 0) + 1;
    return Object.entries(by)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
  };
  console.log(`\nsoak-writers summary: ${secs} s, ${round} rounds (${stats.rounds} judged), ${failures.length} failures (seed ${SEED})`);
  console.log(
    `  did: ${stats.saves.A} saves in A, ${stats.saves.B} in B, ${stats.webEdits} web edits, ${stats.newVersions} new versions, ${stats.prompts} prompts, ${stats.checkouts} checkouts, ${stats.decisions} decisions after a confirmed push and ${stats.decisionsInWindow} in the race window, ${stats.staleTabs} stale web tabs saved after a push (${stats.staleTabsSaid} said by A)`,
  );
  console.log(
    `  faults: ${stats.droppedAfterApply} PATCHes dropped after applying, ${stats.lateApplied} held and applied late; clock steps: ${CLOCK_STEPS.length}`,
  );
  console.log(
    `  judged: ${stats.lost} lost, ${stats.hidden} hidden, ${stats.falseWarnings} false conflict warnings, ${stats.decisionsUndone} decisions undone, ${stats.displaced} displaced by a version (kept and said)`,
  );
  console.log(
    `  ${stats.patches} PATCHes in all; quiet after a round: mean ${Math.round(stats.quietMsTotal / Math.max(1, stats.rounds))} ms, max ${stats.quietMsMax} ms`,
  );
  console.log(`  events of A: ${count(world.A)}`);
  console.log(`  events of B: ${count(world.B)}`);
  for (const d of [world.A, world.B])
    for (const e of d.events.filter((x) => x.event === "conflict").slice(0, 12)) console.log(`  ${d.name} said: ${String(e.message).slice(0, 220)}`);
  for (const f of failures.slice(0, 40)) console.log(`  FAIL: ${f}`);
}

main().catch((err) => {
  console.error(`soak-writers: ${err.stack ?? err}`);
  process.exitCode = 1;
});
