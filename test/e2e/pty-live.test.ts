/**
 * Under a real pseudo-terminal (script(1)): `status --watch` is live (a local edit
 * shows before the service is asked again; a running daemon's uptime moves), and `watch` speaks
 * in one voice (no `INFO ...` log lines, no key=value fields) without -v.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnWatch, type DaemonProcess } from "../daemon/daemon-process.js";
import { BIN, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;

beforeAll(async () => {
  world = await startWorld();
  const { editorId } = seedDesign(world, { "App.tsx": "export function App() { return null; }\n" });
  // The service is asked once a minute: whatever changes on screen within the test came from the local side.
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 60, debounceMs: 50 });
  expect((await world.run(["pull"])).code).toBe(0);
});
afterAll(async () => {
  await world.close();
});

/** `mpsync ...args` in a 120x40 pseudo-terminal; `screen()` is everything shown so far (plain text). */
function inTerminal(args: string[]): { child: ChildProcess; screen: () => string; until: (re: RegExp) => Promise<void>; closed: Promise<number | null> } {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-q", "-e", "-c", `stty cols 120 rows 40; ${quoted}`, "/dev/null"], { cwd: world.cwd, env: { ...world.env, NO_COLOR: "" } });
  let raw = "";
  const waiters = new Set<() => void>();
  child.stdout?.on("data", (d: Buffer) => {
    raw += d.toString("utf8");
    for (const w of [...waiters]) w();
  });
  const screen = (): string => stripVTControlCharacters(raw);
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  const until = (re: RegExp): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!re.test(screen())) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`the terminal never showed ${String(re)}; it shows:\n${screen().slice(-2000)}`));
      }, 15_000);
      waiters.add(check);
      check();
    });
  return { child, screen, until, closed };
}

describe("status --watch is live", () => {
  let d: DaemonProcess;
  beforeAll(async () => {
    d = spawnWatch(world.cwd, world.env);
    await d.waitFor((e) => e.event === "ready");
  });
  afterAll(async () => {
    d.child.kill("SIGTERM");
    await d.exited;
  });

  it("redraws a local edit before the service is asked again, and the daemon's uptime moves", async () => {
    const t = inTerminal(["status", "--watch"]);
    await t.until(/in sync/);
    await t.until(/daemon: pid \d+, up (\d+)s[\s\S]*daemon: pid \d+, up (?!\1s)\d+s/);
    // Pause the daemon so the edit stays local, then watch the local side pick it up.
    expect((await world.run(["pause"])).code).toBe(0);
    await writeFile(join(world.cwd, "site", "App.tsx"), "export function App() { return 1; }\n");
    await t.until(/local changes \(1\): App\.tsx/);
    expect(t.screen()).toMatch(/paused/);
    t.child.kill("SIGINT");
    expect(await t.closed).toBe(0);
    expect((await world.run(["resume"])).code).toBe(0);
  });
});

describe("one voice", () => {
  it("watch on a terminal prints event lines only: no level names, no key=value (they need -v)", async () => {
    const t = inTerminal(["watch"]);
    await t.until(/watching for changes/);
    // A reload writes a log line: it must read like the events around it.
    const lock = JSON.parse(await readFile(join(world.cwd, "site", ".mpsync", "lock"), "utf8")) as { pid: number };
    process.kill(lock.pid, "SIGHUP");
    await t.until(/reload/i);
    await writeFile(join(world.cwd, "site", "App.tsx"), "export function App() { return 2; }\n");
    await t.until(/pushed/);
    t.child.kill("SIGINT");
    await t.closed;
    const lines = t
      .screen()
      .split(/\r?\n/)
      .filter((l) => l.trim() !== "");
    expect(lines.filter((l) => /\b(INFO|WARN|DEBUG|ERROR)\b/.test(l))).toEqual([]);
    expect(lines.filter((l) => /\s\w+=\S/.test(l))).toEqual([]);
    expect(lines.find((l) => /reload/i.test(l))).toMatch(/^\d\d:\d\d:\d\d \S+ /);
  });
});
