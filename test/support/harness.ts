/**
 * Integration harness: the real emulator on 127.0.0.1:0, a real temp folder with a .syncrc,
 * and the real Runtime (undici client, file ledgers, fs adapters). Events are collected and
 * awaitable, so tests wait for what happened instead of sleeping.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import type { EmulatorOptions } from "../../src/emulator/types.js";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { Runtime } from "../../src/runtime.js";
import type { RetryOptions } from "../../src/api/retry-policy.js";
import type { SyncEvent } from "../../src/sync/events.js";
import type { Clock } from "../../src/core/clock.js";

/** The key every harness emulator accepts. */
export const TEST_KEY = "mp_test_key_0123456789abcdef";

/** Files a harness design starts with. */
export const STARTER_FILES: Record<string, string> = {
  "App.tsx": lines("App", 20),
  "index.tsx": 'import { createRoot } from "react-dom/client";\nimport { App } from "./App";\ncreateRoot(document.getElementById("root")!).render(<App />);\n',
  "index.css": "@import 'tailwindcss/base';\n@import 'tailwindcss/components';\n@import 'tailwindcss/utilities';\n",
  "components/Button.tsx": lines("Button", 10),
};

/** `n` numbered lines, so 3-way merges have distinct regions to work with. */
export function lines(prefix: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `// ${prefix} line ${i + 1}`).join("\n") + "\n";
}

/** A running harness. */
export interface Harness {
  emu: RunningEmulator;
  /** Temp folder holding .syncrc and the mapped folder. */
  home: string;
  /** The mapped folder (absolute). */
  root: string;
  editorId: string;
  runtime: Runtime;
  env: Record<string, string>;
  events: SyncEvent[];
  emit: (e: SyncEvent) => void;
  /** Position in the event list, for waitForEvent's `since`. */
  mark(): number;
  /** Resolves on the first event at or after `since` (default: any, past included) matching `predicate`. */
  waitForEvent<E extends SyncEvent>(predicate: (e: SyncEvent) => e is E, options?: { since?: number; timeoutMs?: number }): Promise<E>;
  waitForEvent(predicate: (e: SyncEvent) => boolean, options?: { since?: number; timeoutMs?: number }): Promise<SyncEvent>;
  readLocal(rel: string): Promise<string | undefined>;
  writeLocal(rel: string, text: string): Promise<void>;
  remoteFiles(): Record<string, string>;
  /** A fresh Runtime on the same folder and env (a restart). */
  newRuntime(): Promise<Runtime>;
  close(): Promise<void>;
}

/** Options of startHarness. */
export interface HarnessOptions {
  files?: Record<string, string>;
  syncrc?: Record<string, unknown>;
  emulator?: EmulatorOptions;
  /** Create the design with this prompt (no artifact until its first generation ends). */
  prompt?: string;
  /** A second folder (its own state) on another harness's emulator and design: a teammate. */
  sharing?: Harness;
  /** The Runtime's request retries (short backoff waits for an outage). @default the client's */
  retry?: Partial<RetryOptions>;
}

async function createPrompted(baseUrl: string, prompt: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v3/designs`, {
    method: "POST",
    headers: { "x-mp-api-key": TEST_KEY, "content-type": "application/json" },
    body: JSON.stringify({ prompt }),
  });
  return ((await res.json()) as { editorId: string }).editorId;
}

/** Starts an emulator, a design, a temp folder and a Runtime. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const emu = options.sharing?.emu ?? (await startEmulator({ port: 0, keys: [TEST_KEY], generationMs: 100, ...options.emulator }));
  const home = await mkdtemp(join(tmpdir(), "mpsync-it-"));
  const root = join(home, "design");
  const editorId =
    options.sharing !== undefined
      ? options.sharing.editorId
      : options.prompt === undefined
        ? emu.control.createDesign(TEST_KEY, { files: options.files ?? STARTER_FILES }).editorId
        : await createPrompted(emu.baseUrl, options.prompt);
  const syncrc = {
    baseUrl: emu.baseUrl,
    pollIntervalSec: 0.1,
    debounceMs: 60,
    designs: [{ dir: "design", design: editorId }],
    ...options.syncrc,
  };
  await writeFile(join(home, ".syncrc"), JSON.stringify(syncrc, null, 2));
  const env = { MP_API_KEY: TEST_KEY, XDG_STATE_HOME: join(home, ".xdg-state"), XDG_CONFIG_HOME: join(home, ".xdg-config") };
  const events: SyncEvent[] = [];
  const waiters = new Set<{ predicate: (e: SyncEvent) => boolean; resolve: (e: SyncEvent) => void }>();
  const emit = (e: SyncEvent): void => {
    events.push(e);
    for (const w of [...waiters]) {
      if (w.predicate(e)) {
        waiters.delete(w);
        w.resolve(e);
      }
    }
  };
  const newRuntime = async (): Promise<Runtime> => {
    const rt = new Runtime({ cwd: home, env, logLevel: "silent", retry: options.retry });
    await rt.prepare();
    return rt;
  };
  const runtime = await newRuntime();
  return {
    emu,
    home,
    root,
    editorId,
    runtime,
    env,
    events,
    emit,
    mark: () => events.length,
    waitForEvent: ((
      predicate: (e: SyncEvent) => boolean,
      { since = 0, timeoutMs = 10_000 }: { since?: number; timeoutMs?: number } = {},
    ): Promise<SyncEvent> => {
      const past = events.slice(since).find(predicate);
      if (past !== undefined) return Promise.resolve(past);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          if (waiters.delete(waiter))
            reject(new Error(`no matching event within ${timeoutMs} ms; saw: ${events.map((e) => e.event + ":" + e.message).join(" | ")}`));
        }, timeoutMs).unref();
      });
    }) as Harness["waitForEvent"],
    readLocal: (rel) => readFile(join(root, rel), "utf8").catch(() => undefined),
    async writeLocal(rel, text) {
      await mkdir(dirname(join(root, rel)), { recursive: true });
      await writeFile(join(root, rel), text);
    },
    remoteFiles: () => emu.control.getFiles(editorId),
    newRuntime,
    async close() {
      await runtime.close();
      if (options.sharing === undefined) await emu.close();
      await rm(home, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
export { until } from "./wait.js";

/** Starts the real watch daemon on the harness (fast retry backoff) and waits for `ready`. */
export async function startDaemon(harness: Harness): Promise<WatchDaemon> {
  const d = new WatchDaemon({ runtime: harness.runtime, dirs: [], emit: harness.emit, retry: { baseMs: 50, maxMs: 400 } });
  await d.start();
  await harness.waitForEvent((e) => e.event === "ready");
  return d;
}

/** Starts the real watch daemon on its own Runtime with `clock` (fast retry backoff), waits for `ready`; close the runtime after stopping. */
export async function startDaemonWithClock(harness: Harness, clock: Clock): Promise<{ daemon: WatchDaemon; runtime: Runtime }> {
  const runtime = new Runtime({ cwd: harness.home, env: harness.env, logLevel: "silent", clock });
  await runtime.prepare();
  const daemon = new WatchDaemon({ runtime, dirs: [], emit: harness.emit, retry: { baseMs: 50, maxMs: 400 } });
  await daemon.start();
  await harness.waitForEvent((e) => e.event === "ready");
  return { daemon, runtime };
}

/** An event's `code`, for the events that carry one (error, halted, notice). */
export function codeOf(e: SyncEvent): string | undefined {
  return "code" in e ? e.code : undefined;
}
