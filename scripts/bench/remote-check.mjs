/**
 * The idle cost of the remote content check: an idle WatchDaemon on a design of N
 * files, with pollIntervalSec and remoteCheckSec scaled down so that several checks happen in
 * seconds. Requests per check and per poll are counted from the emulator's log and converted
 * to an hour at the defaults (pollIntervalSec 60, remoteCheckSec 60); CPU per check is the
 * process's CPU time over the window divided by the checks (the daemon and the emulator share
 * this process, so it is an upper bound for the daemon alone).
 */
import { WatchDaemon } from "../../dist/daemon/watch-daemon.js";
import { BENCH_KEY, countByRoute, makeFiles, makeHome, ROUTES, sleep } from "./fixture.mjs";

const SCALED_POLL_SEC = 0.05;
const SCALED_CHECK_SEC = 0.5;
const WINDOW_MS = 4000;
const DEFAULT_POLL_SEC = 60;
const DEFAULT_CHECK_SEC = 60;

/** Measures one design size; resolves to { files, checks, perCheck, perPoll, perHour, cpuMsPerCheck }. */
async function measure(emu, files, bytes) {
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(files, bytes) });
  const home = await makeHome(emu.baseUrl, editorId, { pollIntervalSec: SCALED_POLL_SEC, remoteCheckSec: SCALED_CHECK_SEC });
  const runtime = await home.runtime();
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: () => undefined });
  try {
    await daemon.start();
    await daemon.workers[0].idle();
    const before = emu.control.countRequests();
    const cpuBefore = process.cpuUsage();
    await sleep(WINDOW_MS);
    const cpu = process.cpuUsage(cpuBefore);
    const counts = countByRoute(emu.control.requests().slice(before));
    const polls = counts[ROUTES.status] ?? 0;
    // A check does not ask for the active artifact (its file list comes from the status
    // answer that made it due): checks are counted by the clock, one per remoteCheckSec of the
    // window, and what they read is averaged over them.
    const checks = Math.floor(WINDOW_MS / (SCALED_CHECK_SEC * 1000));
    const activePerCheck = (counts[ROUTES.active] ?? 0) / checks;
    const reads = counts[ROUTES.read] ?? 0;
    const readsPerCheck = reads / checks;
    const other = Object.entries(counts).filter(([route]) => ![ROUTES.status, ROUTES.active, ROUTES.read].includes(route));
    const perHour = 3600 / DEFAULT_POLL_SEC + (3600 / DEFAULT_CHECK_SEC) * (activePerCheck + readsPerCheck);
    return {
      files,
      polls,
      checks,
      readsPerCheck,
      activePerCheck,
      other: Object.fromEntries(other),
      perHour: Math.round(perHour),
      cpuMsPerCheck: (cpu.user + cpu.system) / 1000 / checks,
    };
  } finally {
    await daemon.stop();
    await runtime.close();
    await home.remove();
  }
}

/** Runs the sizes; `log` gets one line per size. */
export async function benchRemoteCheck(emu, { sizes = [20, 200, 2000], bytes = 4096, log = () => undefined } = {}) {
  const rows = [];
  for (const files of sizes) {
    const row = await measure(emu, files, bytes);
    log(
      `remote check, ${files} files: ${row.checks} checks, ${row.readsPerCheck.toFixed(2)} reads/check, ${row.perHour} requests/h at defaults, ${row.cpuMsPerCheck?.toFixed(1)} ms CPU/check`,
    );
    rows.push(row);
  }
  return rows;
}

export const REMOTE_CHECK_HEADER = [
  "idle design",
  "requests per hour at defaults",
  "per check",
  "CPU per check (daemon + emulator)",
  "other requests while idle",
];

const num = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** Table rows for the report. */
export function remoteCheckRows(rows) {
  return rows.map((r) => [
    `${r.files.toLocaleString("en-US")} files`,
    String(r.perHour),
    `${num(r.activePerCheck)} active-artifact + ${num(r.readsPerCheck)} files/read (${r.checks} checks)`,
    `${r.cpuMsPerCheck.toFixed(1)} ms`,
    Object.keys(r.other).length === 0 ? "none" : JSON.stringify(r.other),
  ]);
}
