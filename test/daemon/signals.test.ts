/** The real `mpsync watch` process: SIGTERM flushes then exits 0, SIGHUP reloads .syncrc, kill -9 converges. */
import { readFile, writeFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STARTER_FILES, TEST_KEY, until, type Harness } from "../support/harness.js";
import { useWatches } from "../support/watch-harness.js";
import type { DaemonProcess } from "./daemon-process.js";

const watches = useWatches();

/** A running `watch` whose debounce still holds a save of index.css (`text`). */
async function watchWithPendingSave(text: string, env: Record<string, string> = {}): Promise<{ h: Harness; watch: DaemonProcess }> {
  const { h, d: watch } = await watches.start({ syncrc: { debounceMs: 3000 } }, { env });
  await h.writeLocal("index.css", text);
  return { h, watch };
}

describe("watch process", () => {
  it("on SIGTERM pushes the pending save, then exits 0", async () => {
    const { h, watch } = await watchWithPendingSave("/* saved just before SIGTERM */\n");
    watch.child.kill("SIGTERM");
    const { code } = await watch.exited;
    expect(code).toBe(0);
    expect(h.remoteFiles()["index.css"]).toBe("/* saved just before SIGTERM */\n");
  });

  // A hanging PATCH (or a long Retry-After) must not hold a stop for minutes.
  it("on SIGTERM with a PATCH hanging, flushes for the bound only, then exits 0; the edit stays on disk", async () => {
    const { h, d } = await watches.start({ syncrc: { debounceMs: 50 } }, { env: { MPSYNC_STOP_FLUSH_MS: "300" } });
    h.emu.control.failNext({ method: "PATCH" }, { hang: true }, 10);
    await h.writeLocal("index.css", "/* never answered */\n");
    await h.emu.control.waitForRequest((e) => e.method === "PATCH", { timeoutMs: 10_000 });
    d.child.kill("SIGTERM");
    const { code } = await d.exited;
    expect(code).toBe(0);
    expect(d.stderr.join("\n")).toContain("did not finish within 1 s; exiting, edits not sent stay on disk");
    expect(await h.readLocal("index.css")).toBe("/* never answered */\n");
  });

  it("a second signal exits at once, even with a long flush bound", async () => {
    // No repeat window: the SIGINT below may follow the SIGTERM within milliseconds.
    const { h, d } = await watches.start({ syncrc: { debounceMs: 50 } }, { env: { MPSYNC_STOP_FLUSH_MS: "600000", MPSYNC_SIGNAL_REPEAT_MS: "0" } });
    h.emu.control.failNext({ method: "PATCH" }, { hang: true }, 10);
    await h.writeLocal("index.css", "/* never answered */\n");
    await h.emu.control.waitForRequest((e) => e.method === "PATCH", { timeoutMs: 10_000 });
    d.child.kill("SIGTERM");
    await until(() => d.stderr.some((l) => l.includes("stopping: flushing")), 10_000, "the first signal's message");
    d.child.kill("SIGINT");
    const { code } = await d.exited;
    expect(code).toBe(0);
    expect(d.stderr.join("\n")).toContain("second signal: exiting now");
  });

  it("one Ctrl-C delivered twice (the terminal's, and `npm run` passing it on) still flushes the pending save", async () => {
    // A repeat window far longer than any pause of a loaded machine: the test is about the
    // rule (a repeat within the window is the same request), not about how fast signals travel.
    const { h, watch } = await watchWithPendingSave("/* saved just before Ctrl-C */\n", { MPSYNC_SIGNAL_REPEAT_MS: "60000" });
    watch.child.kill("SIGINT");
    watch.child.kill("SIGINT");
    const { code } = await watch.exited;
    expect(code).toBe(0);
    expect(watch.stderr.join("\n")).not.toContain("second signal");
    expect(h.remoteFiles()["index.css"]).toBe("/* saved just before Ctrl-C */\n");
  });

  it("on SIGHUP re-reads .syncrc and starts syncing a newly mapped folder", async () => {
    const h = await watches.harness();
    const d = watches.spawn(h);
    await d.waitFor((e) => e.event === "ready" && e.dir === "design");
    const second = h.emu.control.createDesign(TEST_KEY, { files: { "App.tsx": "export const second = true;\n" } });
    const syncrc = JSON.parse(await readFile(join(h.home, ".syncrc"), "utf8")) as { designs: unknown[] };
    syncrc.designs.push({ dir: "second", design: second.editorId });
    await writeFile(join(h.home, ".syncrc"), JSON.stringify(syncrc));
    d.child.kill("SIGHUP");
    await d.waitFor((e) => e.event === "ready" && e.dir === "second");
    expect(await readFile(join(h.home, "second/App.tsx"), "utf8")).toBe("export const second = true;\n");
    // Dropping it again stops it (and releases its lock) without a restart.
    syncrc.designs.pop();
    await writeFile(join(h.home, ".syncrc"), JSON.stringify(syncrc));
    d.child.kill("SIGHUP");
    await until(async () => !(await readdir(join(h.home, "second/.mpsync"))).includes("lock"), 10_000, "lock released");
  });

  it("on SIGHUP with a broken .syncrc says what is wrong and that the running designs keep their settings; sync goes on", async () => {
    const h = await watches.harness();
    const d = watches.spawn(h);
    await d.waitFor((e) => e.event === "ready" && e.dir === "design");
    await writeFile(join(h.home, ".syncrc"), '{ "designs": [ { "dir": "design", "design": 42 } ] }');
    d.child.kill("SIGHUP");
    // One JSON line like every other event (spawnWatch parses every stdout line).
    const refused = await d.waitFor((e) => e.event === "error" && e.code === "CONFIG_INVALID");
    expect(refused.message).toMatch(/^reload refused, the running designs keep their settings .*designs\[0\]\.design: expected a string, got 42/);
    await h.writeLocal("index.css", "/* after a refused reload */\n");
    await d.waitFor((e) => e.event === "pushed");
    expect(h.remoteFiles()["index.css"]).toBe("/* after a refused reload */\n");
  });

  it("with --json and --log-file, stdout is pure JSON Lines and logs go to the rotated file", async () => {
    const h = await watches.harness();
    h.emu.control.editFile(h.editorId, "../escape.txt", "hostile");
    const logFile = join(h.home, "logs/mpsync.log");
    const d = watches.spawn(h, { args: ["--log-file", logFile] });
    await d.waitFor((e) => e.event === "ready");
    d.child.kill("SIGTERM");
    expect((await d.exited).code).toBe(0);
    // Every stdout line parsed as JSON (spawnWatch would have thrown otherwise) and has an event name.
    expect(d.events.every((e) => typeof e.event === "string" && typeof e.time === "string")).toBe(true);
    expect(d.stderr.join("\n")).not.toContain("refused remote file name");
    const logs = (await readdir(join(h.home, "logs"))).filter((f) => f.startsWith("mpsync"));
    expect(logs).toContain("mpsync.log"); // exactly the path given: `tail -f` on it works
    const text = (await Promise.all(logs.map((f) => readFile(join(h.home, "logs", f), "utf8")))).join("");
    const records = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { msg: string; level: number });
    expect(records.some((r) => r.msg.includes("refused remote file name") && r.level === 40)).toBe(true);
    expect(text).not.toContain(TEST_KEY);
  });

  // Four daemons started and killed: at a load of 15+ on two cores that took more than 30 s.
  it("kill -9 at random points during pushes, then a restart, converges with no truncated file", { timeout: 120_000 }, async () => {
    const h = await watches.harness({ syncrc: { debounceMs: 30 }, emulator: { faults: { latencyMs: 40 } } });
    const names = Object.keys(STARTER_FILES);
    for (let round = 0; round < 4; round++) {
      let d = watches.spawn(h);
      await d.waitFor((e) => e.event === "ready");
      const want: Record<string, string> = {};
      for (const [i, name] of names.entries()) {
        want[name] = `// round ${round} file ${i}\n`.repeat(50 + round);
        await h.writeLocal(name, want[name]!);
      }
      // Land the kill somewhere between "saved" and "pushed and recorded".
      await new Promise((r) => setTimeout(r, 20 + round * 37));
      d.child.kill("SIGKILL");
      await d.exited;
      // Restart: start-up reconcile must find whatever was not confirmed and converge.
      d = watches.spawn(h);
      await d.waitFor((e) => e.event === "ready");
      await until(() => names.every((n) => h.remoteFiles()[n] === want[n]), 15_000, `round ${round} convergence`);
      for (const n of names) expect(await h.readLocal(n)).toBe(want[n]);
      const state = JSON.parse(await readFile(join(h.root, ".mpsync/state.json"), "utf8")) as { files: object };
      expect(Object.keys(state.files).length).toBeGreaterThanOrEqual(names.length);
      d.child.kill("SIGTERM");
      expect((await d.exited).code).toBe(0);
    }
  });
});
