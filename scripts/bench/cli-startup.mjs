/**
 * Figure 6: how fast the CLI answers. `mpsync --help` and `mpsync status` on a small mapped
 * folder against `node -e 0`, interleaved run by run (each command runs only its own code:
 * src/cli/declare/). Wall time of whole processes, medians of the per-run ratios. The CLI
 * keeps V8's code cache of itself (src/core/code-cache.ts), written by the first run (the
 * `pull` that seeds the folder); `status` is also timed without it (MPSYNC_CODE_CACHE=0), as
 * the first command after an install runs, and with a cache a first `--help` wrote (then one
 * `status` ran, which grows it).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BENCH_KEY, BIN, makeFiles, makeHome } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

function timeProcess(argv, options = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { ...options, stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 || options.allowFailure ? resolve(performance.now() - started) : reject(new Error(`${argv.join(" ")} exited ${code}`)),
    );
  });
}

/** Runs figure 6. */
export async function benchCliStartup(emu, { runs, log }) {
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
    };
  } finally {
    await home.remove();
  }
}
