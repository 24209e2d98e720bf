#!/usr/bin/env node
/**
 * `npm run bench`: mpsync's performance proof. Runs the BUILT code (dist/) against the emulator
 * on 127.0.0.1 and measures, each with its spread over repeated runs:
 *   1. save-to-server latency of a WatchDaemon (debounceMs 150),
 *   2. a burst of 500 writes to 50 files in 1 s (PATCH count, contents on the server),
 *   3. a pull of 2,000 files of 4 KB against a minimal reference client, and the CLI's peak RSS;
 *      the same ratio at 10,000 and 30,000 files; a first push of 2,000 and 10,000 files against
 *      a reference client (read each file, PATCH in parts of 4 MiB),
 *   4. the start-up reconcile of 10,000 unchanged files against a minimal checker, and an idle
 *      `mpsync watch` (10,000 and 2,000 files: RSS, inotify watches),
 *   5. requests per operation against the minimum the API allows,
 *   6. the idle cost of the remote content check (remoteCheckSec) at 20, 200 and 2,000 files,
 *   7. `mpsync dev` in Chromium beside the design's own `vite` (an export-like design, `npm install`
 *      in a copy): save to screen of a stylesheet and a component, cold start, the first run's fetch,
 *   8. over a network (emulator latency 50, 100, 200 ms): save->server, the first save after an
 *      idle, a new version to disk, and an idle 2,000-file design's bytes per hour.
 * Prints a table and rewrites the generated section of BENCHMARKS.md.
 *
 *   9. the read-to-PATCH window of a push with 2 KiB and 1 MiB files, idle and with every core busy.
 *   node scripts/bench.mjs [--quick] [--only save,pull,push,startup,remote,cli,preview,latency,window] [--out FILE] [--json]
 *                          [--nodes 22,24]   (other Node lines figure 6 times `status` on: majors or paths)
 *
 * Every loop is bounded and a watchdog ends a run that hangs.
 */
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { startBenchEmulator } from "./bench/fixture.mjs";
import { benchDaemon, DEBOUNCE_MS } from "./bench/daemon.mjs";
import { benchPull, benchPullScale } from "./bench/pull.mjs";
import { benchPush } from "./bench/push.mjs";
import { benchIdleSmall, benchStartupIdle } from "./bench/startup-idle.mjs";
import { benchCliStartup } from "./bench/cli-startup.mjs";
import { nodeBinary } from "./node-binary.mjs";
import { benchLatency } from "./bench/latency.mjs";
import { benchRemoteCheck, REMOTE_CHECK_HEADER, remoteCheckRows } from "./bench/remote-check.mjs";
import { benchPreview, PREVIEW_HEADER, previewRows } from "./bench/preview.mjs";
import { benchWindow, WINDOW_HEADER, windowRows } from "./bench/window.mjs";
import { readFile, writeFile } from "node:fs/promises";
import {
  buildRequestRows,
  buildRows,
  describeMachine,
  FIGURE_HEADER,
  formatTable,
  latencyRows,
  renderLatencyTable,
  renderSection,
  REQUEST_HEADER,
  writeReport,
} from "./bench/report.mjs";

/**
 * Sizes of a full run and of `--quick`. Quick keeps every scenario but shrinks the file
 * counts (documented in the generated section), so it finishes in about a minute once pulls
 * are fast.
 */
const PLANS = {
  full: {
    saves: 200,
    bursts: 3,
    pushSizes: [2000, 10_000],
    pushRuns: 2,
    pullFiles: 2000,
    pullRuns: 7,
    cliRuns: 2,
    scaleSizes: [10_000, 30_000],
    startupFiles: 10_000,
    reconcileRuns: 3,
    idleSec: 60,
    idleSmallFiles: 2000,
    idleSmallSec: 30,
    cliStartupRuns: 20,
    latency: { saves: 10, versionRuns: 5, idleMs: 15_000, idleFiles: 2000, idleSweeps: 2 },
    preview: { rounds: 4, saves: 6 },
  },
  quick: {
    saves: 50,
    bursts: 2,
    pushSizes: [500],
    pushRuns: 1,
    pullFiles: 500,
    pullRuns: 2,
    cliRuns: 1,
    scaleSizes: [],
    startupFiles: 2000,
    reconcileRuns: 2,
    idleSec: 30,
    idleSmallFiles: undefined,
    idleSmallSec: 0,
    cliStartupRuns: 4,
    latency: { saves: 3, versionRuns: 3, idleMs: 6000, idleFiles: 2000, idleSweeps: 1 },
    preview: { rounds: 2, saves: 4 },
  },
};
const FILE_BYTES = 4096;
const POLL_SEC = 5;
const SCENARIOS = ["save", "pull", "push", "startup", "remote", "cli", "preview", "latency", "window"];
const WATCHDOG_MS = 30 * 60_000;

const PREAMBLE = `# Benchmarks

How fast mpsync is, measured by \`npm run bench\` (\`scripts/bench.mjs\`, about 5 minutes;
\`--quick\` about 1) on the built code against the emulator on 127.0.0.1. Targets come from the
product brief; the generated section below is rewritten by every run, the rest of this file is
kept.
`;

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string", default: join(fileURLToPath(new URL("..", import.meta.url)), "BENCHMARKS.md") },
    json: { type: "boolean", default: false },
    // Other Node lines `status` is timed on (figure 6): majors, installed by node-binary.mjs, or paths.
    nodes: { type: "string", default: "22,24" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (args.help) {
  console.log(`Usage: node scripts/bench.mjs [--quick] [--only ${SCENARIOS.join(",")}] [--out FILE] [--json] [--nodes 22,24]

Runs the built code (npm run bench builds first) against the emulator on 127.0.0.1 and rewrites
the generated sections of BENCHMARKS.md. --only preview: mpsync dev beside the design's own vite
(npm install in a copy of an export-like design) in Debian's Chromium: save to screen of a
stylesheet and a component, cold start, CPU, the first run's fetch and first paint; --quick skips
the fetch and first run (the copy's packages are cached in ~/.cache/mpsync/bench/).`);
  process.exit(0);
}
const only = args.only?.split(",").map((s) => s.trim());
for (const s of only ?? []) if (!SCENARIOS.includes(s)) throw new Error(`--only: unknown scenario ${s} (use ${SCENARIOS.join(", ")})`);
const wants = (s) => only === undefined || only.includes(s);
const mode = args.quick ? "quick" : "full";
const plan = PLANS[mode];
const log = (line) => process.stderr.write(`${line}\n`);

const watchdog = setTimeout(() => {
  log(`bench: still running after ${WATCHDOG_MS / 60_000} min; giving up`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

const startedAt = performance.now();
const results = { mode, only, date: new Date().toISOString(), machine: describeMachine(), loadBefore: os.loadavg(), debounceMs: DEBOUNCE_MS };
const emu = await startBenchEmulator();
// Figures 1-7 compare mpsync with minimal clients that ask for no compression: the emulator
// answers everyone uncompressed, like for like (on loopback compression is only CPU). Figure 8,
// the network, runs with the emulator compressing, as a service behind a CDN would.
emu.control.setCompression("off");
try {
  if (wants("save")) results.daemon = await benchDaemon(emu, { saves: plan.saves, bursts: plan.bursts, log });
  if (wants("pull")) {
    results.pull = await benchPull(emu, { runs: plan.pullRuns, cliRuns: plan.cliRuns, files: plan.pullFiles, bytes: FILE_BYTES, log });
    results.pullScale = await benchPullScale(emu, { sizes: plan.scaleSizes, bytes: FILE_BYTES, log });
  }
  if (wants("push")) results.push = await benchPush(emu, { sizes: plan.pushSizes, runs: plan.pushRuns, bytes: FILE_BYTES, tmp: os.tmpdir(), log });
  if (wants("startup")) {
    results.startup = await benchStartupIdle(emu, {
      files: plan.startupFiles,
      bytes: FILE_BYTES,
      runs: plan.reconcileRuns,
      idleSec: plan.idleSec,
      pollSec: POLL_SEC,
      log,
    });
    if (plan.idleSmallFiles !== undefined) {
      results.idleSmall = await benchIdleSmall(emu, { files: plan.idleSmallFiles, bytes: FILE_BYTES, idleSec: plan.idleSmallSec, pollSec: POLL_SEC, log });
    }
  }
  if (wants("cli")) {
    const nodes = args.nodes
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "" && !process.version.startsWith(`v${s}.`))
      .map((s) => (/^\d+$/.test(s) ? nodeBinary(s) : s));
    results.cli = await benchCliStartup(emu, { runs: plan.cliStartupRuns, log, nodes });
  }
  emu.control.setCompression("auto");
  if (wants("latency")) results.latency = await benchLatency(emu, { ...plan.latency, bytes: FILE_BYTES, log });
  emu.control.setCompression("off");
  if (wants("remote")) results.remoteCheck = await benchRemoteCheck(emu, { bytes: FILE_BYTES, log });
  if (wants("window")) results.window = await benchWindow(emu, { saves: mode === "quick" ? 10 : 40, log });
  if (wants("preview")) results.preview = await benchPreview(emu, { ...plan.preview, quick: mode === "quick", log });
} finally {
  await emu.close();
}
results.loadAfter = os.loadavg();
results.durationMs = performance.now() - startedAt;

console.log(formatTable(FIGURE_HEADER, buildRows(results)));
console.log();
console.log(formatTable(REQUEST_HEADER, buildRequestRows(results)));
if (results.remoteCheck !== undefined) {
  console.log();
  console.log(formatTable(REMOTE_CHECK_HEADER, remoteCheckRows(results.remoteCheck)));
}
if (results.latency !== undefined) {
  console.log();
  console.log(formatTable(FIGURE_HEADER, latencyRows(results.latency)));
}
if (results.preview !== undefined) {
  console.log();
  console.log(formatTable(PREVIEW_HEADER, previewRows(results.preview)));
}
if (results.window !== undefined) {
  console.log();
  console.log(formatTable(WINDOW_HEADER, windowRows(results.window)));
}
if (args.json) console.log(JSON.stringify(results, null, 2));
const OWN_SECTIONS = ["remote", "preview", "latency", "window"];
if (only === undefined || only.some((s) => !OWN_SECTIONS.includes(s))) await writeReport(args.out, renderSection(results), PREAMBLE);
if (results.remoteCheck !== undefined) await writeRemoteSection(args.out, results.remoteCheck);
if (results.preview !== undefined) await writePreviewSection(args.out, results.preview);
if (results.latency !== undefined) await writeNetworkSection(args.out, results);
if (results.window !== undefined) await writeWindowSection(args.out, results.window);
log(`\nbench: ${Math.round(results.durationMs / 1000)} s; wrote ${args.out}`);

/**
 * A figure's own generated section, `<!-- bench:NAME:begin -->` to its end marker, replaced in
 * `file` (or appended): `--only` of that figure keeps the rest of the file.
 */
async function writeOwnSection(file, name, lines) {
  const begin = `<!-- bench:${name}:begin (generated by \`npm run bench\`) -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = [begin, ...lines, end].join("\n");
  const text = (await readFile(file, "utf8").catch(() => "")) || `${PREAMBLE}\n`;
  const next =
    text.includes(begin) && text.includes(end)
      ? text.slice(0, text.indexOf(begin)) + section + text.slice(text.indexOf(end) + end.length)
      : `${text.trimEnd()}\n\n${section}\n`;
  await writeFile(file, next);
}

/** A Markdown table: the header, its rule, the rows. */
function mdTable(header, rows) {
  const md = (cells) => `| ${cells.join(" | ")} |`;
  return [md(header), md(header.map(() => "---")), ...rows.map(md)];
}

/** Figure 8. */
function writeNetworkSection(file, r) {
  return writeOwnSection(file, "network", [
    "### Over a network (figure 8)",
    "",
    `Run ${r.date} (${r.mode}), load average before ${r.loadBefore[0].toFixed(2)}, after ${os.loadavg()[0].toFixed(2)} on ${r.machine.cores} cores. The emulator adds the latency to every request, charges each new connection 2 round trips (a TCP and TLS 1.3 handshake), compresses its answers when asked (as a service behind a CDN would; the idle rows also without) and closes connections idle for 5 s (node:http's default, sent as its Keep-Alive hint).`,
    "",
    renderLatencyTable(r.latency),
  ]);
}

/** The preview's table (`mpsync dev`). */
function writePreviewSection(file, result) {
  return writeOwnSection(file, "preview", [
    "### mpsync dev beside the design's own Vite: save to screen, cold start, first run",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} (${result.quick ? "quick" : "full"}: ${result.rounds.length} rounds of a cold start and ${result.saves} saves of each kind per side, the side going first alternating) in Debian's Chromium (headless), on a design set up as the service exports it (Vite 5, React 18, TypeScript, Tailwind v3, a component with state and a lucide-react icon: scripts/bench/export-design.mjs): synced by \`mpsync dev\`, and copied to a folder where \`npm install\` and its own \`vite\` ran. Load average ${result.loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after, on ${os.cpus().length} cores. The ratio is the median over rounds of mpsync's median / the own vite's median in the same round. Saves lost (not on screen within 15 s; the page loaded again): mpsync dev ${result.lost.mpsync}, own vite ${result.lost.vite}. Counter state kept through every component save: mpsync dev ${result.stateKept.mpsync ? "yes" : "no"}, own vite ${result.stateKept.vite ? "yes" : "no"}.`,
    "",
    ...mdTable(PREVIEW_HEADER, previewRows(result)),
  ]);
}

/** Figure 9, the read-to-PATCH window. */
function writeWindowSection(file, rows) {
  return writeOwnSection(file, "window", [
    "### The read-to-PATCH window (figure 9)",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on loopback with no added latency: from the service answering the read a push decides on to its PATCH having arrived, on the emulator's monotonic clock, one in-process \`mpsync watch\` saving two files of the size in turn; "every core busy": ${os.cpus().length} other processes spinning beside it (scripts/bench/window.mjs). Against the real service add one network round trip.`,
    "",
    ...mdTable(WINDOW_HEADER, windowRows(rows)),
  ]);
}

/** The remote-check table. */
function writeRemoteSection(file, rows) {
  return writeOwnSection(file, "remote", [
    "### Idle cost of the remote content check",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with pollIntervalSec and remoteCheckSec scaled down, converted to the defaults (60 s and 60 s), uncompressed. Checks are counted by the clock (a 4 s window over remoteCheckSec 0.5 s: at most 8), so per-check figures are lower bounds; figure 8's idle rows (whole sweeps, bytes) are the careful measure.`,
    "",
    ...mdTable(REMOTE_CHECK_HEADER, remoteCheckRows(rows)),
  ]);
}
