/**
 * Figure 6: how fast the CLI answers. `mpsync --help` and `mpsync status` on a small mapped
 * folder against `node -e 0`, interleaved run by run (each command runs only its own code:
 * src/cli/declare/). Wall time of whole processes, medians of the per-run ratios. The CLI
 * keeps compiled code of itself (src/core/code-cache.ts: Node's compile cache from 22.1, V8's
 * code cache kept by mpsync before), written by the first run (the `pull` that seeds the
 * folder); `status` is also timed without it (MPSYNC_CODE_CACHE=0), as the first command after
 * an install runs, and with a cache a first `--help` wrote (then one `status` ran, which grows it).
 *
 * Per Node (the one running the bench, then each of `nodes`): `mpsync status` against the
 * minimal status client (reference-status.mjs: read `.syncrc`, one status request with
 * `fetch`, hash the folder), both on that Node.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_KEY, BIN, makeFiles, makeHome } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

const REFERENCE_STATUS = fileURLToPath(new URL("reference-status.mjs", import.meta.url));

function timeProcess(argv, options = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(options.node ?? process.execPath, argv, { ...options, stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 || options.allowFailure ? resolve(performance.now() - started) : reject(new Error(`${argv.join(" ")} exited ${code}`)),
    );
  });
}

/** The version of the Node at `node` (`v24.21.0`). */
function versionOf(node) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ["--version"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", () => resolve(out.trim()));
  });
}

/** `mpsync status` against the minimal status client and `node -e 0`, all on `node`. */
async function statusOnNode(node, home, runs) {
  const env = { ...process.env, ...home.env, MPSYNC_CODE_CACHE_DIR: join(home.home, `.cache-${await versionOf(node)}`) };
  const options = { cwd: home.home, env, node };
  await timeProcess([BIN, "status"], options); // writes the code cache
  await timeProcess([REFERENCE_STATUS], options);
  const bare = [];
  const reference = [];
  const status = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await timeProcess(["-e", "0"], options));
    reference.push(await timeProcess([REFERENCE_STATUS], options));
    status.push(await timeProcess([BIN, "status"], options));
  }
  return {
    version: await versionOf(node),
    nodeMs: summarize(bare),
    referenceMs: summarize(reference),
    statusMs: summarize(status),
    referenceRatio: summarize(status.map((s, i) => s / reference[i])),
    nodeRatio: summarize(status.map((s, i) => s / bare[i])),
  };
}

/** Runs figure 6; `nodes`: more Node binaries to time `status` on. */
export async function benchCliStartup(emu, { runs, log, nodes = [] }) {
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(20, 1024) });
  const home = await makeHome(emu.baseUrl, editorId);
  try {
    const env = { ...process.env, ...home.env, MPSYNC_CODE_CACHE_DIR: join(home.home, ".cache-pull-first") };
    const helpFirstEnv = { ...env, MPSYNC_CODE_CACHE_DIR: join(home.home, ".cache-help-first") };
    await timeProcess([BIN, "pull"], { cwd: home.home, env }); // writes the code cache
    await timeProcess([BIN, "--help"], { env: helpFirstEnv });
    await timeProcess([BIN, "status"], { cwd: home.home, env: helpFirstEnv });
    const node = [];
    const help = [];
    const status = [];
    const uncached = [];
    const helpFirst = [];
    for (let i = 0; i < runs; i++) {
      node.push(await timeProcess(["-e", "0"]));
      help.push(await timeProcess([BIN, "--help"], { env }));
      status.push(await timeProcess([BIN, "status"], { cwd: home.home, env }));
      uncached.push(await timeProcess([BIN, "status"], { cwd: home.home, env: { ...env, MPSYNC_CODE_CACHE: "0" } }));
      helpFirst.push(await timeProcess([BIN, "status"], { cwd: home.home, env: helpFirstEnv }));
    }
    log(
      `cli: node -e 0 ${Math.round(summarize(node).median)} ms, --help ${Math.round(summarize(help).median)} ms, status ${Math.round(summarize(status).median)} ms (without the code cache ${Math.round(summarize(uncached).median)} ms, cache first written by --help ${Math.round(summarize(helpFirst).median)} ms)`,
    );
    const perNode = [];
    for (const n of [process.execPath, ...nodes]) {
      const r = await statusOnNode(n, home, runs);
      log(
        `cli on ${r.version}: node -e 0 ${Math.round(r.nodeMs.median)} ms, minimal status client ${Math.round(r.referenceMs.median)} ms, status ${Math.round(r.statusMs.median)} ms`,
      );
      perNode.push(r);
    }
    return {
      nodeMs: summarize(node),
      helpMs: summarize(help),
      statusMs: summarize(status),
      helpRatio: summarize(help.map((h, i) => h / node[i])),
      statusRatio: summarize(status.map((s, i) => s / node[i])),
      uncachedStatusMs: summarize(uncached),
      uncachedStatusRatio: summarize(uncached.map((s, i) => s / node[i])),
      helpFirstStatusMs: summarize(helpFirst),
      helpFirstStatusRatio: summarize(helpFirst.map((s, i) => s / node[i])),
      perNode,
    };
  } finally {
    await home.remove();
  }
}
