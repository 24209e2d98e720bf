/**
 * `watch` whose only folder stops (its `.mpsync/` removed, the folder replaced, the
 * design answering 403 or 404) exits with one line saying why and a documented exit code,
 * instead of Node's code 13 (an unsettled top-level await) and no word.
 */
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../support/harness.js";
import { killDaemon, spawnWatch, type DaemonProcess } from "./daemon-process.js";
import { BIN } from "../e2e/helpers.js";

let h: Harness;
let d: DaemonProcess | undefined;
afterEach(async () => {
  await killDaemon(d);
  d = undefined;
  await h?.close();
});

/** The last event: the daemon's final word on stdout (JSON Lines to the end). */
function lastEvent(p: DaemonProcess): Record<string, unknown> | undefined {
  return p.events.at(-1);
}

describe("watch with no folder left", () => {
  it("its .mpsync/ removed: one error for the folder, one final line, exit 1", async () => {
    h = await startHarness();
    d = spawnWatch(h.home, h.env);
    await d.waitFor((e) => e.event === "ready");
    await rm(join(h.root, ".mpsync"), { recursive: true, force: true, maxRetries: 10 });
    const { code } = await d.exited;
    expect(code).toBe(1);
    expect(d.events.filter((e) => e.code === "FOLDER_LOCKED" && e.dir === "design")).toHaveLength(1);
    expect(lastEvent(d)).toMatchObject({ event: "error", dir: "*", exitCode: 1 });
    expect(String(lastEvent(d)?.message)).toMatch(/^watch stopped: no folder left to sync \(design: FOLDER_LOCKED\)/);
  });

  it("the folder replaced while it runs: exit 1 with the reason", async () => {
    h = await startHarness();
    d = spawnWatch(h.home, h.env);
    await d.waitFor((e) => e.event === "ready");
    await rename(h.root, `${h.root}.old`);
    await mkdir(h.root);
    await h.writeLocal("App.tsx", "export function App() { return null; }\n");
    const { code } = await d.exited;
    expect(code).toBe(1);
    expect(String(lastEvent(d)?.message)).toContain("no folder left to sync");
  });

  it("the design answering 403: exit 3", async () => {
    h = await startHarness();
    d = spawnWatch(h.home, h.env);
    await d.waitFor((e) => e.event === "ready");
    h.emu.control.failNext({ method: "GET", path: /\/status$/ }, { status: 403 }, 1000);
    const { code } = await d.exited;
    expect(code).toBe(3);
    expect(lastEvent(d)).toMatchObject({ event: "error", code: "FORBIDDEN", exitCode: 3 });
  });

  it("a design that is not found at start (human output): one line naming the folder, exit 1", async () => {
    h = await startHarness({ syncrc: { designs: [{ dir: "design", design: "zzzzzzzzzzzzzzzzzzzzzz" }] } });
    const child = spawn(process.execPath, [BIN, "watch"], {
      cwd: h.home,
      env: { PATH: process.env.PATH ?? "", HOME: h.home, NO_COLOR: "1", ...h.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(code).toBe(1);
    expect(stderr).toMatch(/error: watch stopped: no folder left to sync \(design: NOT_FOUND\)/);
    expect(stderr.match(/no folder left to sync/g)).toHaveLength(1);
  });
});
