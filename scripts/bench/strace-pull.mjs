/**
 * System calls per pulled file: `mpsync pull` of N files (4 KB, 50 per folder) under
 * `strace -f -c`, against the reference client run the same way. Needs strace (Linux).
 * Usage: node scripts/bench/strace-pull.mjs [N]. `npm run bench` reports the same figure.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_KEY, BIN, makeFiles, makeHome, startBenchEmulator } from "./fixture.mjs";

/** Runs `argv` under strace -f -c; resolves total calls and the top calls. */
export async function straceCount(argv, options) {
  const out = join(await mkdtemp(join(tmpdir(), "mpsync-strace-")), "count.txt");
  // Asynchronous: the emulator answering the child runs in this process.
  const child = spawn("strace", ["-f", "-c", "-o", out, ...argv], { ...options, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const status = await new Promise((resolve) => child.on("close", resolve));
  if (status !== 0) throw new Error(`${argv.join(" ")} exited ${status}: ${stderr.slice(-400)}`);
  const text = await readFile(out, "utf8");
  const calls = new Map();
  for (const line of text.split("\n")) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?(\w+)\s*$/.exec(line);
    if (m && m[3] !== "total") calls.set(m[3], Number(m[1]));
  }
  const total = [...calls.values()].reduce((a, b) => a + b, 0);
  return { total, calls: [...calls].sort((a, b) => b[1] - a[1]) };
}

export async function stracePull(emu, count) {
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(count, 4096, "src", 50) });
  const home = await makeHome(emu.baseUrl, editorId);
  try {
    const mpsync = await straceCount([process.execPath, BIN, "pull", "--json"], { cwd: home.home, env: home.env });
    const empty = await straceCount([process.execPath, "-e", "0"], {});
    const refDir = await mkdtemp(join(tmpdir(), "mpsync-strace-ref-"));
    const refScript = fileURLToPath(new URL("./reference-cli.mjs", import.meta.url));
    const reference = await straceCount([process.execPath, refScript, emu.baseUrl, editorId, refDir], {});
    await rm(refDir, { recursive: true, force: true });
    return { count, mpsync, reference, empty };
  } finally {
    await home.remove();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const emu = await startBenchEmulator();
  const n = Number(process.argv[2] ?? 2000);
  const r = await stracePull(emu, n);
  const per = (x) => ((x.total - r.empty.total) / n).toFixed(1);
  console.log(`mpsync pull: ${per(r.mpsync)} calls/file; reference: ${per(r.reference)} calls/file (node -e 0: ${r.empty.total} calls)`);
  console.log(
    "mpsync top:",
    r.mpsync.calls
      .slice(0, 16)
      .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
      .join(", "),
  );
  console.log(
    "reference top:",
    r.reference.calls
      .slice(0, 10)
      .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
      .join(", "),
  );
  await emu.close();
}
