/**
 * The harness (harness.ts) with the built CLI's `watch --json` running on it, as test/daemon
 * sets it up: each daemon started is killed after the test, then each harness closed (a
 * teammate's folder, which shares the first one's emulator, before that first one).
 */
import { afterEach } from "vitest";
import { killDaemon, spawnWatch, type DaemonProcess } from "../daemon/daemon-process.js";
import { runCli, type RunResult } from "../e2e/helpers.js";
import { startHarness, type Harness, type HarnessOptions } from "./harness.js";

/** How a `watch` is started: env added to the harness's, and arguments after `watch --json`. */
export interface WatchOptions {
  env?: Record<string, string>;
  args?: string[];
}

/** What a test file of running daemons sets up; everything it starts ends after each test. */
export interface WatchSetup {
  /** A harness, closed after the test. */
  harness(options?: HarnessOptions): Promise<Harness>;
  /** `watch --json` in the harness's home (not waited for), killed after the test. */
  spawn(h: Harness, options?: WatchOptions): DaemonProcess;
  /** A harness and its `watch`, once the watch said `ready`. */
  start(options?: HarnessOptions, watch?: WatchOptions): Promise<{ h: Harness; d: DaemonProcess }>;
  /** Two folders on one design (the second a teammate's, sharing the emulator), a `watch` each, both ready. */
  pair(syncrc: Record<string, unknown>): Promise<[Harness, Harness, DaemonProcess, DaemonProcess]>;
}

/** Registers the teardown (call it at the top of a test file) and returns the setup. */
export function useWatches(): WatchSetup {
  const daemons: DaemonProcess[] = [];
  const harnesses: Harness[] = [];
  afterEach(async () => {
    for (const d of daemons.splice(0)) await killDaemon(d);
    for (const h of harnesses.splice(0).reverse()) await h.close();
  });
  const setup: WatchSetup = {
    async harness(options) {
      const h = await startHarness(options);
      harnesses.push(h);
      return h;
    },
    spawn(h, options = {}) {
      const d = spawnWatch(h.home, { ...h.env, ...options.env }, options.args);
      daemons.push(d);
      return d;
    },
    async start(options, watch) {
      const h = await setup.harness(options);
      const d = setup.spawn(h, watch);
      await d.waitFor((e) => e.event === "ready");
      return { h, d };
    },
    async pair(syncrc) {
      const a = await setup.harness({ syncrc });
      const b = await setup.harness({ sharing: a, syncrc });
      const [da, db] = [setup.spawn(a), setup.spawn(b)];
      await Promise.all([da.waitFor((e) => e.event === "ready"), db.waitFor((e) => e.event === "ready")]);
      return [a, b, da, db];
    },
  };
  return setup;
}

/** Runs `mpsync ...args` in the harness's home, with its key and state (a command typed beside a running watch). */
export function cliIn(h: Harness, args: string[]): Promise<RunResult> {
  return runCli(args, { cwd: h.home, env: { PATH: process.env.PATH ?? "", HOME: h.home, NO_COLOR: "1", ...h.env } });
}
