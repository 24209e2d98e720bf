/**
 * `watch` whose only folder stops (its `.mpsync/` removed, the folder replaced, the
 * design answering 403 or 404) exits with one line saying why and a documented exit code,
 * instead of Node's code 13 (an unsettled top-level await) and no word.
 */
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliIn, useWatches } from "../support/watch-harness.js";
import type { DaemonProcess } from "./daemon-process.js";

const watches = useWatches();

/** The last event: the daemon's final word on stdout (JSON Lines to the end). */
function lastEvent(p: DaemonProcess): Record<string, unknown> | undefined {
  return p.events.at(-1);
}

describe("watch with no folder left", () => {
  it("its .mpsync/ removed: one error for the folder, one final line, exit 1", async () => {
    const { h, d } = await watches.start();
    await rm(join(h.root, ".mpsync"), { recursive: true, force: true, maxRetries: 10 });
    const { code } = await d.exited;
    expect(code).toBe(1);
    expect(d.events.filter((e) => e.code === "FOLDER_LOCKED" && e.dir === "design")).toHaveLength(1);
    expect(lastEvent(d)).toMatchObject({ event: "error", dir: "*", exitCode: 1 });
    expect(String(lastEvent(d)?.message)).toMatch(/^watch stopped: no folder left to sync \(design: FOLDER_LOCKED\)/);
  });

  it("the folder replaced while it runs: exit 1 with the reason", async () => {
    const { h, d } = await watches.start();
    await rename(h.root, `${h.root}.old`);
    await mkdir(h.root);
    await h.writeLocal("App.tsx", "export function App() { return null; }\n");
    const { code } = await d.exited;
    expect(code).toBe(1);
    expect(String(lastEvent(d)?.message)).toContain("no folder left to sync");
  });

  it("the design answering 403: exit 3", async () => {
    const { h, d } = await watches.start();
    h.emu.control.failNext({ method: "GET", path: /\/status$/ }, { status: 403 }, 1000);
    const { code } = await d.exited;
    expect(code).toBe(3);
    expect(lastEvent(d)).toMatchObject({ event: "error", code: "FORBIDDEN", exitCode: 3 });
  });

  it("a design that is not found at start (human output): one line naming the folder, exit 1", async () => {
    const h = await watches.harness({ syncrc: { designs: [{ dir: "design", design: "zzzzzzzzzzzzzzzzzzzzzz" }] } });
    const { code, stderr } = await cliIn(h, ["watch"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/error: watch stopped: no folder left to sync \(design: NOT_FOUND\)/);
    expect(stderr.match(/no folder left to sync/g)).toHaveLength(1);
  });
});
