/**
 * A saved .syncrc is taken by a running daemon without a signal: new mappings
 * start, removed ones stop, changed settings apply (or the line says they need a restart).
 * The real daemon, real chokidar and a real .syncrc on disk, against the emulator.
 */
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { acquireFolderLock } from "../../src/state/lock.js";
import { codeOf, startDaemon, startHarness, TEST_KEY, until, type Harness } from "../support/harness.js";

let h: Harness;
let daemon: WatchDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await h?.close();
});

type Syncrc = { designs: { dir: string; design: string }[]; [key: string]: unknown };

async function editSyncrc(change: (c: Syncrc) => void): Promise<void> {
  const path = join(h.home, ".syncrc");
  const c = JSON.parse(await readFile(path, "utf8")) as Syncrc;
  change(c);
  // As editors save: a temp file renamed over the old one.
  await writeFile(`${path}.tmp`, JSON.stringify(c, null, 2));
  await rename(`${path}.tmp`, path);
}

const reloaded = (since: number) => h.waitForEvent((e) => e.event === "notice" && e.code === "RELOADED", { since });

describe("a saved .syncrc", () => {
  it("starts a new mapping and stops a removed one, each said in one line", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const second = h.emu.control.createDesign(TEST_KEY, { files: { "App.tsx": "export const second = true;\n" } });
    let mark = h.mark();
    await editSyncrc((c) => c.designs.push({ dir: "second", design: second.editorId }));
    expect((await reloaded(mark)).message).toBe("reloaded .syncrc: started second");
    await h.waitForEvent((e) => e.event === "ready" && e.dir === "second", { since: mark });
    expect(await readFile(join(h.home, "second/App.tsx"), "utf8")).toBe("export const second = true;\n");
    mark = h.mark();
    await editSyncrc((c) => c.designs.pop());
    expect((await reloaded(mark)).message).toBe("reloaded .syncrc: stopped second");
    await until(async () => !(await readdir(join(h.home, "second/.mpsync"))).includes("lock"), 10_000, "lock released");
  });

  it("applies a changed folder setting to the running folder (publishOnPush), and says which settings need a restart", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const mark = h.mark();
    await editSyncrc((c) => Object.assign(c, { publishOnPush: true, pollIntervalSec: 0.2, logLevel: "debug" }));
    expect((await reloaded(mark)).message).toBe(
      "reloaded .syncrc: restarted the sync of design to apply publishOnPush; applied pollIntervalSec; logLevel takes effect when mpsync watch is restarted",
    );
    await h.waitForEvent((e) => e.event === "ready", { since: mark });
    await h.writeLocal("index.css", "body { margin: 0; }\n");
    await h.waitForEvent((e) => e.event === "published", { since: mark });
  });

  it("a broken save is refused once, the running folder keeps going, and the fix is taken", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const path = join(h.home, ".syncrc");
    const good = await readFile(path, "utf8");
    let mark = h.mark();
    await writeFile(path, '{ "designs": [ { "dir": "design", "design": 42 } ] }');
    const refused = await h.waitForEvent((e) => e.event === "error" && e.code === "CONFIG_INVALID", { since: mark });
    expect(refused.message).toMatch(
      /^reload refused, the running designs keep their settings \(fix \.syncrc: it is read again when saved\): .*designs\[0\]\.design/,
    );
    await h.writeLocal("index.css", "/* after a refused reload */\n");
    await h.waitForEvent((e) => e.event === "pushed", { since: mark });
    expect(h.events.filter((e) => codeOf(e) === "CONFIG_INVALID")).toHaveLength(1);
    mark = h.mark();
    await writeFile(path, good.replace('"debounceMs": 60', '"debounceMs": 80'));
    expect((await reloaded(mark)).message).toBe("reloaded .syncrc: restarted the sync of design to apply debounceMs");
  });

  it("putting back the file a refused reload saw says the error cleared, though nothing changed", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const path = join(h.home, ".syncrc");
    const good = await readFile(path, "utf8");
    let mark = h.mark();
    await writeFile(path, "{ not json");
    await h.waitForEvent((e) => e.event === "error" && e.code === "CONFIG_INVALID", { since: mark });
    mark = h.mark();
    await writeFile(path, good);
    expect((await reloaded(mark)).message).toBe(".syncrc is valid again: nothing changed");
  });

  it("a new folder another mpsync process holds (init pulling it) starts once that process lets go", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const second = h.emu.control.createDesign(TEST_KEY, { files: { "App.tsx": "export const second = true;\n" } });
    await mkdir(join(h.home, "second"));
    const held = await acquireFolderLock(join(h.home, "second"), { command: "mpsync init" });
    const mark = h.mark();
    await editSyncrc((c) => c.designs.push({ dir: "second", design: second.editorId }));
    const waiting = await h.waitForEvent((e) => e.event === "notice" && e.code === "WAITING", { since: mark });
    expect(waiting.message).toContain("its sync starts here when that process ends");
    await held.release();
    await h.waitForEvent((e) => e.event === "ready" && e.dir === "second", { since: mark });
    expect(h.events.slice(mark).filter((e) => e.event === "error")).toEqual([]);
  });
});
