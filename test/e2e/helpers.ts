/**
 * End-to-end harness: the BUILT CLI (`node dist/bin.cjs`) spawned against an in-process
 * emulator on 127.0.0.1:0, with config, state and credentials isolated in a temp folder.
 * Every run asserts the API key never reaches stdout or stderr.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator/index.js";
import { assertPublishedShape } from "../support/json-output.js";

/** The API key every e2e test uses; it must never be printed. */
export const KEY = "e2e-secret-key-5f2c9a7d1b";
/** Root of the repository. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built CLI. */
export const BIN = join(REPO, "dist", "bin.cjs");

/** Result of one CLI run. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One isolated world: emulator, temp folder (cwd `work/`), environment. */
export interface E2eWorld {
  emulator: RunningEmulator;
  root: string;
  cwd: string;
  env: Record<string, string>;
  /** Runs `mpsync ...args`; `input` is written to stdin (then closed). */
  run(args: string[], options?: { env?: Record<string, string | undefined>; input?: string; cwd?: string }): Promise<RunResult>;
  /** Writes `.syncrc` in cwd. */
  writeSyncrc(config: Record<string, unknown>): Promise<void>;
  readJson<T = Record<string, unknown>>(stdout: string): T;
  close(): Promise<void>;
}

/** Fails early and clearly when the CLI was not built, or its freshness not checked (a test outside the e2e project). */
export function assertBuilt(): void {
  if (inject("builtCliChecked") !== true)
    throw new Error("this test runs dist/: list its file in E2E of vitest.config.ts, whose global setup rebuilds a stale dist/");
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
}

/** Starts an emulator and a temp world around it. */
export async function startWorld(options: EmulatorOptions = {}): Promise<E2eWorld> {
  assertBuilt();
  const emulator = await startEmulator({ port: 0, host: "127.0.0.1", keys: [KEY], generationMs: 300, ...options });
  const root = await mkdtemp(join(tmpdir(), "mpsync-e2e-"));
  const cwd = join(root, "work");
  await mkdir(cwd, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    HOME: root,
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_STATE_HOME: join(root, "state"),
    NO_COLOR: "1",
    MP_API_KEY: KEY,
    MPSYNC_BASE_URL: emulator.baseUrl,
  };
  return {
    emulator,
    root,
    cwd,
    env,
    run: (args, o = {}) => runCli(args, { cwd: o.cwd ?? cwd, env: withOverrides(env, o.env ?? {}), input: o.input }),
    writeSyncrc: (config) => writeFile(join(cwd, ".syncrc"), `${JSON.stringify(config, null, 2)}\n`),
    readJson: <T>(stdout: string) => JSON.parse(stdout) as T,
    async close() {
      await emulator.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

function withOverrides(base: Record<string, string>, overrides: Record<string, string | undefined>): Record<string, string> {
  const out = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Spawns the built CLI asynchronously (the emulator lives in this process: never block it). */
export function runCli(args: string[], options: { cwd: string; env: Record<string, string>; input?: string | undefined }): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      expect(stdout, "the API key leaked to stdout").not.toContain(KEY);
      expect(stderr, "the API key leaked to stderr").not.toContain(KEY);
      try {
        assertPublishedShape(args, stdout);
      } catch (err) {
        reject(err as Error);
        return;
      }
      resolvePromise({ code, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin.write(options.input);
    child.stdin.end();
  });
}

/** Reads a text file. */
export function readText(path: string): Promise<string> {
  return readFile(path, "utf8");
}

/** A design owned by KEY, blank scaffold or exactly `files`. */
export function seedDesign(world: E2eWorld, files?: Record<string, string>): { editorId: string; artifactId: string } {
  const created = world.emulator.control.createDesign(KEY, files === undefined ? { name: "Seed" } : { name: "Seed", files });
  return { editorId: created.editorId, artifactId: created.artifactId };
}

/**
 * For a whole test file: a world with one design (blank scaffold or `files`) mapped to `site/`
 * and pulled once; `use` receives them before the first test; closed after the last.
 */
export function usePulledSite(use: (world: E2eWorld, editorId: string) => void, files?: Record<string, string>): void {
  let world: E2eWorld | undefined;
  beforeAll(async () => {
    world = await startWorld();
    const { editorId } = seedDesign(world, files);
    await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
    expect((await world.run(["pull"])).code).toBe(0);
    use(world, editorId);
  });
  afterAll(async () => {
    await world?.close();
  });
}
