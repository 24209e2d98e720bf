#!/usr/bin/env node
/**
 * `npm run demo`: the daemon against the built-in emulator, no key and no network.
 *
 * Runs the BUILT code (dist/), building it first only when a build input changed since the last
 * build (scripts/dist-freshness.mjs: after `npm ci`, which builds, it starts at once). Everything it writes is git-ignored and owned by the demo:
 *   .demo/           .syncrc, emulator data, isolated XDG config/state (never your real credentials)
 *   demo-design/     the mirrored folder
 * The emulator keeps its designs in .demo/emulator.json, so a second run continues the same design.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildIfStale } from "./dist-freshness.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(REPO, "dist", "bin.cjs");
const DEMO_HOME = join(REPO, ".demo");
const DESIGN_DIR = join(REPO, "demo-design");
const SYNCRC = join(DEMO_HOME, ".syncrc");
const DEMO_KEY = "demo-key";
/** Loopback: any interval >= 0.05 s is accepted; 2 s keeps the log readable. */
const POLL_INTERVAL_SEC = 2;
const GENERATION_MS = 4000;
/** Loopback: web-editor edits made through the emulator reach the folder within 5 s. */
const REMOTE_CHECK_SEC = 5;
const STOP_TIMEOUT_MS = 10_000;

async function main() {
  // Built by `npm ci` (package.json's `prepare`): a build only when a source changed since.
  const build = () => spawnSync(process.execPath, [join(REPO, "scripts", "build.mjs")], { cwd: REPO, stdio: "inherit" }).status;
  await buildIfStale(REPO, build, (line) => console.log(line));
  const { startEmulator } = await import("../dist/emulator/index.js");
  await mkdir(DEMO_HOME, { recursive: true });

  const emulator = await startEmulator({
    host: "127.0.0.1",
    port: 0,
    keys: [DEMO_KEY],
    generationMs: GENERATION_MS,
    dataFile: join(DEMO_HOME, "emulator.json"),
  });
  const editorId = await demoDesign(emulator);
  await writeFile(
    SYNCRC,
    `${JSON.stringify({ baseUrl: emulator.baseUrl, designs: [{ dir: "../demo-design", design: editorId }], pollIntervalSec: POLL_INTERVAL_SEC, remoteCheckSec: REMOTE_CHECK_SEC }, null, 2)}\n`,
  );
  const env = demoEnv(emulator.baseUrl);

  const pulled = await runToEnd(["pull"], env);
  if (pulled !== 0 && pulled !== 5) {
    await emulator.close();
    throw new Error(`the first pull failed (exit ${pulled})`);
  }
  await printInstructions(emulator.baseUrl, editorId);
  const child = spawn(process.execPath, [BIN, "watch"], { cwd: REPO, env, stdio: "inherit" });
  await superviseUntilStopped(child, emulator);
}

/** The design of the previous run when the emulator still has it, else a fresh blank one. */
async function demoDesign(emulator) {
  const previous = await readPreviousEditorId();
  if (previous !== undefined) {
    try {
      emulator.control.getDesign(previous);
      return previous;
    } catch {
      // The emulator data was removed: start over below.
    }
  }
  if (existsSync(DESIGN_DIR)) {
    // Never delete what the user may have edited: move the old folder aside.
    const aside = join(DEMO_HOME, `demo-design-${Date.now()}`);
    await rename(DESIGN_DIR, aside);
    console.log(`moved the previous demo-design/ to ${relative(REPO, aside)}/`);
  }
  return emulator.control.createDesign(DEMO_KEY, { name: "mpsync demo" }).editorId;
}

async function readPreviousEditorId() {
  try {
    const config = JSON.parse(await readFile(SYNCRC, "utf8"));
    return config?.designs?.[0]?.design;
  } catch {
    return undefined;
  }
}

/** Environment of every demo command: the emulator, the demo key, isolated config and state. */
function demoEnv(baseUrl) {
  return {
    ...process.env,
    MP_API_KEY: DEMO_KEY,
    MPSYNC_BASE_URL: baseUrl,
    MPSYNC_CONFIG: SYNCRC,
    XDG_CONFIG_HOME: join(DEMO_HOME, "config"),
    XDG_STATE_HOME: join(DEMO_HOME, "state"),
  };
}

function runToEnd(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env, stdio: "inherit" });
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
}

async function printInstructions(baseUrl, editorId) {
  // A short command to copy: the wrapper carries the demo's environment (its port changes).
  const wrapper = join(DEMO_HOME, "mpsync");
  const vars = Object.entries({
    MP_API_KEY: DEMO_KEY,
    MPSYNC_BASE_URL: baseUrl,
    MPSYNC_CONFIG: SYNCRC,
    XDG_CONFIG_HOME: join(DEMO_HOME, "config"),
    XDG_STATE_HOME: join(DEMO_HOME, "state"),
  })
    .map(([k, v]) => `${k}='${v}'`)
    .join(" ");
  await writeFile(wrapper, `#!/bin/sh\n# Written by npm run demo: mpsync with the demo's environment.\nexec env ${vars} node '${BIN}' "$@"\n`, { mode: 0o755 });
  await writeFile(
    join(DEMO_HOME, "web-edit"),
    `#!/bin/sh\n# Written by npm run demo: a teammate's edit in the web editor (mpsync emulator web-edit).\nexec env ${vars} node '${BIN}' emulator web-edit "$@"\n`,
    { mode: 0o755 },
  );
  console.log(`
mpsync demo: emulator on ${baseUrl}, design ${editorId}, mirrored into demo-design/

Try, while the daemon below runs:
  1. edit demo-design/App.tsx and save: it is pushed within a moment
  2. from another terminal in this folder:
       .demo/mpsync prompt "make the header sticky" --wait
     the emulator "generates" for ${GENERATION_MS / 1000} s, the daemon polls every ${POLL_INTERVAL_SEC} s and pulls the new version
  3. a teammate's edit in the web editor (no new version: the daemon finds it within ${REMOTE_CHECK_SEC} s):
       .demo/web-edit App.tsx
     for a conflict: .demo/mpsync pause, add a last line to demo-design/App.tsx and save,
     .demo/web-edit App.tsx, then .demo/mpsync resume
  4. also try: .demo/mpsync status, .demo/mpsync versions, .demo/mpsync checkout v1

Ctrl-C stops the daemon (pending pushes are flushed) and the emulator.
`);
}

/** Waits for Ctrl-C or the daemon's exit; stops the daemon (SIGTERM, it flushes), then the emulator. */
function superviseUntilStopped(child, emulator) {
  return new Promise((resolve) => {
    let stopping = false;
    const finish = async (code) => {
      await emulator.close();
      console.log("demo stopped");
      resolve(code);
    };
    child.on("close", (code) => {
      void finish(stopping ? 0 : (code ?? 1));
    });
    const stop = (signal) => {
      if (stopping) {
        // A second Ctrl-C: do not wait for the flush.
        child.kill("SIGKILL");
        return;
      }
      stopping = true;
      // A terminal's Ctrl-C reaches the child too (same process group): passing it on would be a
      // second signal. SIGTERM covers `kill <pid>` of this script.
      if (signal !== "SIGINT" && child.exitCode === null) child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS).unref();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  }).then((code) => {
    process.exitCode = code;
  });
}

main().catch((err) => {
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
