/**
 * What every scenario shares: the emulator on 127.0.0.1:0, temp homes holding a .syncrc, a
 * Runtime on the BUILT code, generated file sets, request-log accounting and child processes
 * of the built CLI with a resource probe. Mirrors test/support/harness.ts.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulator } from "../../dist/emulator/index.js";
import { Runtime } from "../../dist/runtime.js";

/** The key the bench emulator accepts. */
export const BENCH_KEY = "mp_bench_key_0123456789abcdef";

const HERE = dirname(fileURLToPath(import.meta.url));
/** The built CLI entry. */
export const BIN = join(HERE, "..", "..", "dist", "bin.cjs");
const PROBE = join(HERE, "probe-preload.mjs");

/** Starts the emulator (no request logging: it would cost the bench process CPU). */
export function startBenchEmulator() {
  return startEmulator({ port: 0, host: "127.0.0.1", keys: [BENCH_KEY], generationMs: 100 });
}

/**
 * `count` files of exactly `bytes` bytes each, spread over folders of 100 (`src/dNN/cNNNN.tsx`),
 * every content distinct so no hash is shared.
 */
export function makeFiles(count, bytes, prefix = "src", perFolder = 100) {
  const files = {};
  for (let i = 0; i < count; i++) {
    const name = `${prefix}/d${String(Math.floor(i / perFolder)).padStart(3, "0")}/c${String(i).padStart(5, "0")}.tsx`;
    files[name] = fileText(`${name} v0`, bytes);
  }
  return files;
}

/**
 * `count` files of `bytes` bytes cut from this repository's own TypeScript sources, named like
 * makeFiles': text that compresses as real code does (3-4x), where makeFiles' one repeated line
 * compresses a hundredfold. Each file is a slice at its own offset with its letters shifted by
 * its own amount (0-25), so two files rarely share a run a compressor could borrow.
 */
export async function makeSourceFiles(count, bytes, prefix = "src", perFolder = 100) {
  const root = join(HERE, "..", "..", "src");
  const names = (await readdir(root, { recursive: true })).filter((n) => n.endsWith(".ts")).sort();
  const corpus = (await Promise.all(names.map((n) => readFile(join(root, n), "utf8")))).join("\n").replace(/[^\x20-\x7e\n]/g, " ");
  const shift = (text, by) => text.replace(/[a-z]/g, (c) => String.fromCharCode(97 + ((c.charCodeAt(0) - 97 + by) % 26)));
  const files = {};
  for (let i = 0; i < count; i++) {
    const name = `${prefix}/d${String(Math.floor(i / perFolder)).padStart(3, "0")}/c${String(i).padStart(5, "0")}.tsx`;
    const at = (i * 4099) % (corpus.length - bytes);
    files[name] = (`// ${name} v0\n` + shift(corpus.slice(at, at + bytes), i % 26)).slice(0, bytes - 1) + "\n";
  }
  return files;
}

/** A text of exactly `bytes` ASCII bytes that starts with `seed` (TypeScript-looking lines). */
export function fileText(seed, bytes) {
  const head = `// ${seed}\n`;
  const line = 'export const value = { label: "lorem ipsum dolor sit amet", n: 42 };\n';
  const body = line.repeat(Math.ceil(bytes / line.length) + 1);
  return (head + body).slice(0, bytes - 1) + "\n";
}

/**
 * A temp home holding `.syncrc` mapping the folder `design` to `editorId`, and the env a
 * Runtime or a CLI child needs (key, and state/config homes inside the temp folder).
 */
export async function makeHome(baseUrl, editorId, syncrc = {}) {
  const home = await mkdtemp(join(tmpdir(), "mpsync-bench-"));
  const config = { baseUrl, pollIntervalSec: 60, debounceMs: 150, designs: [{ dir: "design", design: editorId }], ...syncrc };
  await writeFile(join(home, ".syncrc"), JSON.stringify(config, null, 2));
  const env = { MP_API_KEY: BENCH_KEY, XDG_STATE_HOME: join(home, ".xdg-state"), XDG_CONFIG_HOME: join(home, ".xdg-config") };
  return {
    home,
    root: join(home, "design"),
    env,
    /** A fresh Runtime on this home (what a process start builds). */
    async runtime() {
      const rt = new Runtime({ cwd: home, env, logLevel: "silent" });
      await rt.prepare();
      return rt;
    },
    remove: () => rm(home, { recursive: true, force: true, maxRetries: 5 }),
  };
}

/** Opens the only mapping of `runtime` as a DesignSync. */
export async function openOnlyDesign(runtime, emit = () => undefined) {
  const [mapping] = await runtime.mappings();
  return runtime.openDesign(mapping, emit);
}

/** `/v3/designs/abc/artifacts/uuid/files/read` -> `/v3/designs/{id}/artifacts/{id}/files/read`. */
export function routeOf(entry) {
  const parts = entry.path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const owner = parts[i - 1];
    if ((owner === "designs" && parts[i] !== "resolve-url") || owner === "artifacts") parts[i] = "{id}";
  }
  return `${entry.method} ${parts.join("/")}`;
}

/** Counts log entries by route, e.g. `{ "GET /v3/designs/{id}/active-artifact": 1 }`. */
export function countByRoute(entries) {
  const counts = {};
  for (const e of entries) counts[routeOf(e)] = (counts[routeOf(e)] ?? 0) + 1;
  return counts;
}

/** Route names used in the report. */
export const ROUTES = {
  status: "GET /v3/designs/{id}/status",
  active: "GET /v3/designs/{id}/active-artifact",
  read: "POST /v3/designs/{id}/artifacts/{id}/files/read",
  patch: "PATCH /v3/designs/{id}/artifacts/{id}/files",
};

/** Runs `fn` and returns its result with the emulator requests it caused (by position in the log). */
export async function withRequests(control, fn) {
  const before = control.countRequests();
  const result = await fn();
  return { result, requests: control.requests().slice(before) };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spawns the built CLI in `cwd` with the resource probe preloaded: `sample()` asks the child
 * for its rss and cpuUsage over IPC (no periodic wake-ups that would pollute an idle CPU
 * figure); `exited` resolves with the exit code and the kernel's peak RSS (getrusage maxrss).
 */
export async function spawnCli(args, { cwd, env }) {
  const probeFile = join(await mkdtemp(join(tmpdir(), "mpsync-probe-")), "probe.json");
  const child = spawn(process.execPath, ["--import", PROBE, BIN, ...args], {
    cwd,
    env: { ...process.env, ...env, NO_COLOR: "1", BENCH_PROBE_FILE: probeFile },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let stdout = "";
  let stderr = "";
  const lineWaiters = new Set();
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
    for (const w of [...lineWaiters]) if (w.test(stdout)) w.resolve();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal }))).then(async (r) => {
    const probe = JSON.parse(await readFile(probeFile, "utf8").catch(() => "{}"));
    await rm(dirname(probeFile), { recursive: true, force: true });
    return { ...r, maxRssBytes: probe.maxRssKb === undefined ? Number.NaN : probe.maxRssKb * 1024, cpu: probe.cpu, stdout, stderr };
  });
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Resolves when stdout matches `re`; rejects after `timeoutMs` or when the child exits first. */
    waitForOutput(re, timeoutMs) {
      if (re.test(stdout)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => fail(new Error(`no ${re} on stdout within ${timeoutMs} ms; stderr: ${stderr.slice(-500)}`)), timeoutMs);
        const waiter = { test: (s) => re.test(s), resolve: () => done(resolve) };
        const fail = (err) => done(() => reject(err));
        const done = (then) => {
          clearTimeout(timer);
          lineWaiters.delete(waiter);
          then();
        };
        lineWaiters.add(waiter);
        void exited.then((r) => fail(new Error(`child exited (${r.code ?? r.signal}) before ${re}; stderr: ${stderr.slice(-500)}`)));
      });
    },
    sample() {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("probe did not answer")), 5000);
        child.once("message", (m) => {
          clearTimeout(timer);
          resolve(m);
        });
        child.send("sample");
      });
    },
  };
}
