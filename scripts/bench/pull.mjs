/**
 * Figure 3: a full pull of 2,000 files of 4 KB into an empty folder, mpsync's engine
 * (DesignSync.fullSync) against a minimal reference client doing only what the API requires,
 * both in this process against the same emulator; then the peak RSS and wall time of the
 * built CLI (`mpsync pull`) in a child process.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Agent, request } from "undici";
import { BENCH_KEY, countByRoute, makeFiles, makeHome, openOnlyDesign, spawnCli, withRequests } from "./fixture.mjs";
import { summarize } from "./stats.mjs";
import { stracePull } from "./strace-pull.mjs";

/** System calls per pulled file, above `node -e 0`; with and without futex (thread-pool wake-ups). */
function perFile(r) {
  const per = (x) => {
    const futex = (x.calls.find(([k]) => k === "futex")?.[1] ?? 0) - (r.empty.calls.find(([k]) => k === "futex")?.[1] ?? 0);
    const all = (x.total - r.empty.total) / r.count;
    return { all, withoutFutex: all - futex / r.count };
  };
  return { mpsync: per(r.mpsync), reference: per(r.reference) };
}

const READ_BATCH = 100;
const READS_IN_FLIGHT = 4;

/**
 * What the API requires to read a whole design, and nothing more: GET active-artifact, then
 * files/read in batches of 100 with 4 in flight; `onFile` gets each file as it arrives.
 * Resolves to the number of files the artifact lists.
 */
export async function readEveryFile(baseUrl, editorId, onFile) {
  const dispatcher = new Agent({ connections: READS_IN_FLIGHT });
  const headers = { "x-mp-api-key": BENCH_KEY, "content-type": "application/json" };
  try {
    const active = await (await request(`${baseUrl}/v3/designs/${editorId}/active-artifact`, { headers, dispatcher })).body.json();
    const batches = [];
    for (let i = 0; i < active.files.length; i += READ_BATCH) batches.push(active.files.slice(i, i + READ_BATCH));
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const fileNames = batches[next++];
        const res = await request(`${baseUrl}/v3/designs/${editorId}/artifacts/${active.artifactId}/files/read`, {
          method: "POST",
          headers,
          body: JSON.stringify({ fileNames }),
          dispatcher,
        });
        for (const f of (await res.body.json()).files) await onFile(f);
      }
    };
    await Promise.all(Array.from({ length: READS_IN_FLIGHT }, worker));
    return active.files.length;
  } finally {
    await dispatcher.close();
  }
}

/** The reference client: every file read (readEveryFile), then `fs.writeFile`. */
export async function referencePull(baseUrl, editorId, root) {
  const made = new Set();
  return readEveryFile(baseUrl, editorId, async (f) => {
    const abs = join(root, f.name);
    const dir = dirname(abs);
    if (!made.has(dir)) {
      made.add(dir);
      await mkdir(dir, { recursive: true });
    }
    await writeFile(abs, f.content);
  });
}

async function countFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && !join(e.parentPath ?? e.path, e.name).includes(".mpsync")).length;
}

/** One engine pull into a fresh home; resolves ms, the requests it made and the file count. */
async function enginePull(emu, editorId) {
  const home = await makeHome(emu.baseUrl, editorId);
  try {
    const runtime = await home.runtime();
    const sync = await openOnlyDesign(runtime);
    const started = performance.now();
    const { result: report, requests } = await withRequests(emu.control, () => sync.fullSync());
    const ms = performance.now() - started;
    await runtime.close();
    return { ms, requests, pulled: report.result?.pulled.length ?? 0 };
  } finally {
    await home.remove();
  }
}

async function refPull(emu, editorId) {
  const dir = await mkdtemp(join(tmpdir(), "mpsync-bench-ref-"));
  try {
    const started = performance.now();
    await referencePull(emu.baseUrl, editorId, dir);
    const ms = performance.now() - started;
    return { ms, files: await countFiles(dir) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `mpsync pull` in a child: wall time (process start included) and kernel peak RSS. */
async function cliPull(emu, editorId) {
  const home = await makeHome(emu.baseUrl, editorId);
  try {
    const started = performance.now();
    const { result: exit, requests } = await withRequests(
      emu.control,
      async () => (await spawnCli(["pull", "--json"], { cwd: home.home, env: home.env })).exited,
    );
    const ms = performance.now() - started;
    if (exit.code !== 0) throw new Error(`mpsync pull exited ${exit.code}: ${exit.stderr.slice(-500)}`);
    return { ms, maxRssBytes: exit.maxRssBytes, requests, stderr: exit.stderr, files: await countFiles(home.root) };
  } finally {
    await home.remove();
  }
}

/**
 * `runs` pairs of pulls (mpsync's engine and the reference, back to back), alternating who goes
 * first (`engineFirst` for the first pair); engine[i] and reference[i] are one pair.
 */
export async function pairedPulls(emu, editorId, fileCount, runs, engineFirst, log) {
  const engine = [];
  const reference = [];
  let requests;
  for (let i = 0; i < runs; i++) {
    const pair = (i % 2 === 0) === engineFirst ? ["engine", "ref"] : ["ref", "engine"];
    for (const who of pair) {
      if (who === "ref") {
        const r = await refPull(emu, editorId);
        if (r.files !== fileCount) throw new Error(`reference pulled ${r.files} of ${fileCount} files`);
        reference.push(r.ms);
      } else {
        const r = await enginePull(emu, editorId);
        if (r.pulled !== fileCount) throw new Error(`mpsync pulled ${r.pulled} of ${fileCount} files`);
        engine.push(r.ms);
        requests ??= r.requests;
      }
      log(`  ${who} run ${i + 1}: ${Math.round((who === "ref" ? reference : engine).at(-1))} ms`);
    }
  }
  return { engine, reference, requests };
}

/** Runs figure 3 and the pull's request count (figure 5). */
export async function benchPull(emu, { runs, cliRuns, files: fileCount, bytes, log }) {
  // 50 files per folder: 2,000 files in 40 folders, as the issue measured.
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(fileCount, bytes, "src", 50) });
  log(`pull: ${fileCount} files of ${bytes} B, ${runs} runs each (plus one warm-up), alternating order`);
  await refPull(emu, editorId);
  await enginePull(emu, editorId);
  // Alternate who goes first so neither always runs on a warmer page cache or heap.
  const { engine, reference, requests } = await pairedPulls(emu, editorId, fileCount, runs, true, log);
  const cli = [];
  for (let i = 0; i < cliRuns; i++) {
    const r = await cliPull(emu, editorId);
    if (r.files !== fileCount) throw new Error(`mpsync pull (CLI) wrote ${r.files} of ${fileCount} files`);
    cli.push(r);
    log(`  cli run ${i + 1}: ${Math.round(r.ms)} ms, peak RSS ${(r.maxRssBytes / 2 ** 20).toFixed(1)} MiB`);
  }
  const ratios = engine.map((ms, i) => ms / reference[i]);
  const syscalls = await stracePull(emu, fileCount).catch((err) => {
    log(`  strace: not measured (${err.message.split("\n")[0]})`);
    return undefined;
  });
  return {
    fileCount,
    bytes,
    engineMs: summarize(engine),
    referenceMs: summarize(reference),
    ratio: summarize(ratios),
    cliMs: summarize(cli.map((r) => r.ms)),
    cliPeakRssBytes: summarize(cli.map((r) => r.maxRssBytes)),
    cliWarnings: [
      ...new Set(
        cli.flatMap((r) =>
          r.stderr
            .split("\n")
            .filter((l) => /Warning/.test(l))
            .map((l) => l.replace(/^\(node:\d+\) /, "")),
        ),
      ),
    ],
    syscalls: syscalls === undefined ? undefined : perFile(syscalls),
    requests: countByRoute(requests),
    cliRequests: countByRoute(cli[0].requests),
  };
}

/**
 * The pull at scale (the ratio must stop growing with N): mpsync's engine against
 * the reference at each size, two interleaved pairs (reference first, then engine first).
 */
export async function benchPullScale(emu, { sizes, bytes, log }) {
  const out = [];
  for (const fileCount of sizes) {
    const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(fileCount, bytes, "src", 50) });
    log(`pull at scale: ${fileCount} files of ${bytes} B, 2 interleaved pairs`);
    const { engine, reference } = await pairedPulls(emu, editorId, fileCount, 2, false, log);
    // Pair i: engine[i] and reference[i] ran back to back.
    out.push({ fileCount, engineMs: summarize(engine), referenceMs: summarize(reference), ratio: summarize(engine.map((ms, i) => ms / reference[i])) });
  }
  return out;
}
