/** The real daemon (WatchDaemon + DesignWorker + chokidar) on a real folder against the emulator. */
import { mkdir, readdir, readFile, rm, writeFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { codeOf, lines, startHarness, STARTER_FILES, until, type Harness, startDaemon } from "../support/harness.js";
import { removeAtOnce } from "../support/temp-dir.js";

let h: Harness;
let daemon: WatchDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await h?.close();
});

const isPatch = (e: { method: string }): boolean => e.method === "PATCH";
const isPoll = (e: { path: string }): boolean => e.path.endsWith("/status");

describe("watch", () => {
  it("pulls at start, then pushes a save as one PATCH and never echoes its own writes", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    expect(await h.readLocal("App.tsx")).toBe(STARTER_FILES["App.tsx"]);
    await h.writeLocal("index.css", "body { margin: 0; }\n");
    await h.waitForEvent((e) => e.event === "pushed");
    expect(h.remoteFiles()["index.css"]).toBe("body { margin: 0; }\n");
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
    // A few poll cycles later there is still exactly one PATCH: the pull's writes did not echo.
    const polls = h.emu.control.countRequests((e) => e.path.endsWith("/status"));
    await h.emu.control.waitForRequest((e) => e.path.endsWith("/status") && h.emu.control.countRequests((x) => x.path.endsWith("/status")) >= polls + 3, {
      timeoutMs: 5000,
    });
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
  });

  it("reads the remote once at start (begun while the watcher gets ready), and an edit right after ready is pushed", async () => {
    h = await startHarness();
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, () => undefined)).fullSync();
    await h.writeLocal("index.css", "/* made while the daemon was down */\n");
    h.emu.control.resetRequestLog();
    daemon = await startDaemon(h);
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/active-artifact"))).toBe(1);
    // The start read, then the read-back of the pushed file (read-back.ts).
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/files/read"))).toBe(2);
    expect(h.remoteFiles()["index.css"]).toBe("/* made while the daemon was down */\n");
    await h.writeLocal("App.tsx", "export function App() { return null; }\n");
    await until(() => h.remoteFiles()["App.tsx"] === "export function App() { return null; }\n");
  });

  it("turns a burst of saves into one PATCH (branch-switch sized)", async () => {
    h = await startHarness({ syncrc: { debounceMs: 400 } });
    daemon = await startDaemon(h);
    // As a checkout or an agent writes: each round's files at once. (150 writes awaited one by
    // one can stall past the debounce on a loaded 2-core machine: that is a pause, not a burst.)
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 30 }, (_, i) => writeFile(join(h.root, `f${i}.ts`), `export const v = ${round};\n`)));
    }
    await h.waitForEvent((e) => e.event === "pushed");
    await daemon.workers[0]!.idle();
    const remote = h.remoteFiles();
    for (let i = 0; i < 30; i++) expect(remote[`f${i}.ts`]).toBe("export const v = 4;\n");
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
  });

  it("write-temp-then-rename saves push only the final name", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const tmp = join(h.root, "App.tsx.tmp.1234");
    await writeFile(tmp, "export default 1;\n");
    await rename(tmp, join(h.root, "App.tsx"));
    const pushed = await h.waitForEvent((e) => e.event === "pushed");
    expect(pushed.files).toEqual(["App.tsx"]);
    expect(Object.keys(h.remoteFiles()).some((n) => n.includes(".tmp"))).toBe(false);
  });

  it("a folder tree made at once (mkdir -p, then writes) is pushed whole, and later saves inside it too", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    await mkdir(join(h.root, "features", "cart", "ui"), { recursive: true });
    await writeFile(join(h.root, "features", "cart", "index.ts"), "export * from './ui/Cart';\n");
    await writeFile(join(h.root, "features", "cart", "ui", "Cart.tsx"), "export const Cart = () => null;\n");
    await until(
      () => h.remoteFiles()["features/cart/ui/Cart.tsx"] !== undefined && h.remoteFiles()["features/cart/index.ts"] !== undefined,
      10_000,
      "the new tree on the service",
    );
    await daemon.workers[0]!.idle();
    await writeFile(join(h.root, "features", "cart", "ui", "Cart.tsx"), "export const Cart = () => 'cart';\n");
    await until(() => h.remoteFiles()["features/cart/ui/Cart.tsx"] === "export const Cart = () => 'cart';\n", 10_000, "the later save");
  });

  it("a folder renamed while watched: its files go out under the new name; the old names stay deleted locally (the API cannot delete)", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    await mkdir(join(h.root, "widgets"));
    await writeFile(join(h.root, "widgets", "A.tsx"), "export const A = 1;\n");
    await writeFile(join(h.root, "widgets", "B.tsx"), "export const B = 2;\n");
    await until(() => h.remoteFiles()["widgets/B.tsx"] !== undefined && h.remoteFiles()["widgets/A.tsx"] !== undefined, 10_000, "the folder on the service");
    await daemon.workers[0]!.idle();
    await rename(join(h.root, "widgets"), join(h.root, "parts"));
    await until(
      () => h.remoteFiles()["parts/A.tsx"] === "export const A = 1;\n" && h.remoteFiles()["parts/B.tsx"] === "export const B = 2;\n",
      10_000,
      "the renamed folder on the service",
    );
    await daemon.workers[0]!.idle();
    // Not pulled back into the old folder, not deleted on the service.
    expect(await readdir(h.root)).not.toContain("widgets");
    expect(h.remoteFiles()["widgets/A.tsx"]).toBe("export const A = 1;\n");
  });

  it("pulls a finished generation with no echo PATCH", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    h.emu.control.startGeneration(h.editorId, "add a pricing table");
    await h.waitForEvent((e) => e.event === "generating");
    const before = h.mark();
    h.emu.control.finishGeneration(h.editorId);
    await h.waitForEvent((e) => e.event === "pulled", { since: before });
    const remote = h.remoteFiles();
    for (const [name, text] of Object.entries(remote)) expect(await h.readLocal(name)).toBe(text);
    await daemon.workers[0]!.idle();
    expect(h.emu.control.countRequests(isPatch)).toBe(0);
  });

  it("holds a save made during generation, then reconciles it with the result: both texts survive", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    h.emu.control.startGeneration(h.editorId, "make the header sticky");
    await h.waitForEvent((e) => e.event === "generating");
    const mine = STARTER_FILES["App.tsx"]!.replace("// App line 1\n", "// App line 1\n// my local line\n");
    await h.writeLocal("App.tsx", mine);
    // Wait for the next poll: the save must not have been pushed while generating.
    const polls = h.emu.control.countRequests((e) => e.path.endsWith("/status"));
    await until(() => h.emu.control.countRequests((e) => e.path.endsWith("/status")) > polls + 1, 5000, "two more polls");
    expect(h.emu.control.countRequests(isPatch)).toBe(0);
    h.emu.control.finishGeneration(h.editorId);
    await h.waitForEvent((e) => e.event === "idle");
    await until(() => h.emu.control.countRequests(isPatch) > 0, 5000, "the held push");
    const remote = h.remoteFiles()["App.tsx"]!;
    expect(remote).toContain("// my local line");
    expect(await h.readLocal("App.tsx")).toBe(remote);
  });

  it("queues edits while the service is down and sends them when it is back", async () => {
    // Short request backoff: the outage is seen and retried the way it is with the defaults.
    h = await startHarness({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
    daemon = await startDaemon(h);
    h.emu.control.setFaults({ errorRate: 1 });
    await h.writeLocal("index.css", "/* offline edit */\n");
    const failed = await h.waitForEvent((e) => e.event === "error");
    // The emulator answers 500/503: the service's trouble, not this machine's network.
    expect(failed.message).toMatch(/^service unavailable: .*; retrying \(next try in [\d.]+ s\)$/);
    // `mpsync status` shows it: the daemon records it in daemon.json, beside (not in) the bases.
    const lastErrorCode = async (): Promise<string | undefined> =>
      (JSON.parse(await readFile(join(h.root, ".mpsync/daemon.json"), "utf8")) as { lastError?: { code: string } }).lastError?.code;
    await until(async () => (await lastErrorCode()) === "SERVER_ERROR", 5000, "lastError in daemon.json");
    h.emu.control.setFaults({ errorRate: 0 });
    await h.waitForEvent((e) => e.event === "pushed", { timeoutMs: 15_000 });
    expect(h.remoteFiles()["index.css"]).toBe("/* offline edit */\n");
    await until(async () => (await lastErrorCode()) === undefined, 5000, "lastError cleared");
    // One line for the outage, one when it ends: never a line per retry.
    expect(h.events.filter((e) => e.event === "error")).toHaveLength(1);
    expect(h.events.filter((e) => codeOf(e) === "RESUMED").map((e) => e.message)).toEqual(["the service answers again: sync resumed"]);
  });

  it("after an outage, a retried push before any status poll says the service is back before pushed", async () => {
    // One poll at start, none after: the retry timer's cycle is the first to reach the service.
    h = await startHarness({ syncrc: { pollIntervalSec: 3600 }, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
    daemon = await startDaemon(h);
    // The start poll goes out after `ready`: answered before the outage, or its retries run
    // through the outage and one may reach the service ahead of the push.
    await h.emu.control.waitForRequest((e) => isPoll(e) && e.status === 200, { includePast: true });
    h.emu.control.setFaults({ errorRate: 1 });
    await h.writeLocal("index.css", "/* edit made offline */\n");
    await h.waitForEvent((e) => e.event === "error");
    h.emu.control.setFaults({ errorRate: 0 });
    await h.waitForEvent((e) => e.event === "pushed", { timeoutMs: 15_000 });
    // Of the polls and PATCHes the service answered since the outage began, the PATCH is first.
    const log = h.emu.control.requests();
    const answered = log.slice(log.findIndex((e) => e.fault !== undefined)).filter((e) => e.status === 200 && (isPoll(e) || isPatch(e)));
    expect(answered[0]?.method).toBe("PATCH");
    const said = h.events.filter((e) => e.event === "pushed" || codeOf(e) === "RESUMED").map((e) => e.message);
    expect(said).toEqual(["the service answers again: sync resumed", "pushed index.css"]);
  });

  it("halts the design on a mass delete and leaves every file in place", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    h.emu.control.setFiles(h.editorId, { "App.tsx": lines("only", 2) }, { newArtifact: true, title: "oops" });
    await h.waitForEvent((e) => e.event === "halted");
    for (const name of ["index.tsx", "index.css", "components/Button.tsx"]) expect(await h.readLocal(name)).toBe(STARTER_FILES[name]);
  });

  it("flushes pending changes on stop", async () => {
    h = await startHarness({ syncrc: { debounceMs: 5000 } });
    daemon = await startDaemon(h);
    await h.writeLocal("index.css", "/* flushed at stop */\n");
    await daemon.stop();
    daemon = undefined;
    expect(h.remoteFiles()["index.css"]).toBe("/* flushed at stop */\n");
  });

  it("a deleted folder halts instead of being taken for deletes", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    await removeAtOnce(h.root);
    h.emu.control.editFile(h.editorId, "index.css", "/* remote change */\n");
    await h.waitForEvent((e) => e.event === "halted");
    expect(Object.keys(h.remoteFiles()).sort()).toEqual(Object.keys(STARTER_FILES).sort());
  });
});

describe("publishOnPush", () => {
  it("publishes after each push batch; a compile error is shown and sync goes on", async () => {
    h = await startHarness({ syncrc: { publishOnPush: true } });
    daemon = await startDaemon(h);
    let mark = h.mark();
    await h.writeLocal("index.css", "body { margin: 0; }\n");
    await h.waitForEvent((e) => e.event === "published", { since: mark });
    expect(h.emu.control.getDesign(h.editorId).previewUrl).toMatch(/^https:\/\/project-/);
    mark = h.mark();
    await h.writeLocal("components/Broken.tsx", "export const Broken = (<div>;\n");
    const failed = await h.waitForEvent((e) => e.event === "error", { since: mark });
    expect(failed.code).toBe("UNPROCESSABLE");
    expect(failed.message).toMatch(/^publish failed: Compilation failed: components\/Broken\.tsx:\d+:\d+: /);
    // The broken file was still pushed, and the next save syncs as usual.
    expect(h.remoteFiles()["components/Broken.tsx"]).toBe("export const Broken = (<div>;\n");
    mark = h.mark();
    await h.writeLocal("index.css", "body { margin: 1px; }\n");
    await h.waitForEvent((e) => e.event === "pushed", { since: mark });
    expect(h.remoteFiles()["index.css"]).toBe("body { margin: 1px; }\n");
  });

  // docs/service-facts.md#publish: the service makes the published artifact active and adds a
  // version. That is mpsync's own change: no pull, no backup, no conflict, no echo, no loop.
  it("a publish that moves the active artifact is mpsync's own change: nothing pulled, pushed or published again", async () => {
    h = await startHarness({ syncrc: { publishOnPush: true } });
    daemon = await startDaemon(h);
    const before = h.emu.control.activeArtifactId(h.editorId);
    const mark = h.mark();
    await h.writeLocal("index.css", "body { margin: 0; }\n");
    await h.waitForEvent((e) => e.event === "published", { since: mark });
    const published = h.emu.control.activeArtifactId(h.editorId);
    expect(published).not.toBe(before);
    // Let the daemon see the moved artifact through a few status polls.
    const polls = h.emu.control.countRequests((e) => e.path.endsWith("/status"));
    await h.emu.control.waitForRequest((e) => e.path.endsWith("/status") && h.emu.control.countRequests((x) => x.path.endsWith("/status")) >= polls + 3, {
      timeoutMs: 10_000,
    });
    await daemon.workers[0]!.idle();
    const after = h.events.slice(mark);
    expect(after.filter((e) => ["pulled", "conflict", "error", "halted"].includes(e.event))).toEqual([]);
    expect(after.filter((e) => e.event === "published")).toHaveLength(1);
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/publish"))).toBe(1);
    expect(h.emu.control.activeArtifactId(h.editorId)).toBe(published);
    expect(await readdir(join(h.root, ".mpsync", "backups")).catch(() => [])).toEqual([]);
    expect(await h.readLocal("index.css")).toBe("body { margin: 0; }\n");
  });
});

describe("a design with no version yet", () => {
  it("watch says there is nothing to pull yet, without errors, and syncs once the first generation ends", async () => {
    h = await startHarness({ prompt: "Add a pricing table", emulator: { generationMs: 600_000 } });
    daemon = await startDaemon(h);
    const notice = await h.waitForEvent((e) => e.event === "notice" && e.code === "NO_ARTIFACT");
    expect(notice.message).toContain("nothing to pull yet");
    const mark = h.mark();
    h.emu.control.finishGeneration(h.editorId);
    await h.waitForEvent((e) => e.event === "pulled", { since: mark });
    expect(await h.readLocal("App.tsx")).toBe(h.remoteFiles()["App.tsx"]);
    expect(h.events.filter((e) => e.event === "error" || e.event === "halted")).toEqual([]);
    expect(h.events.filter((e) => e.event === "notice" && e.code === "NO_ARTIFACT")).toHaveLength(1);
  });
});

describe("the folder's lock", () => {
  // `rm -rf design/.mpsync` while watch runs once left a daemon without its lock, and a
  // second watch could start on the same folder.
  it("a lock that vanished stops that folder with one clear error", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const mark = h.mark();
    await rm(join(h.root, ".mpsync"), { recursive: true, force: true });
    const stopped = await h.waitForEvent((e) => e.event === "error" && e.code === "FOLDER_LOCKED", { since: mark });
    expect(stopped.message).toContain("vanished or changed owner");
    expect(stopped.message).toContain("sync of design stopped");
    // Its only folder stopped: the daemon ends rather than wait with nothing to sync.
    await expect(daemon.done).rejects.toMatchObject({ code: "FOLDER_LOCKED", message: expect.stringContaining("no folder left to sync") });
    expect(h.events.filter((e) => codeOf(e) === "FOLDER_LOCKED")).toHaveLength(1);
  });
});
