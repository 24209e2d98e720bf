/**
 * Other writers on the real daemon (real chokidar, the undici client, the emulator on 127.0.0.1):
 * a PATCH answered 503 while the web editor saves, and a version built before a pushed new
 * file. Two real `watch` processes saving at once live in test/daemon/two-writers.test.ts.
 */
import { readdir, readFile, utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { recordVersionIntent } from "../../src/state/version-intent.js";
import { startDaemon, startHarness, STARTER_FILES, until, type Harness } from "../support/harness.js";

let h: Harness | undefined;
let daemon: WatchDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await h?.close();
  h = undefined;
});

const isPatch = (e: { method: string }): boolean => e.method === "PATCH";

describe("a PATCH whose first attempt failed", () => {
  it("is not repeated over a web save made meanwhile: the next cycle reads it and both edits end on the service", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const app = STARTER_FILES["App.tsx"]!;
    h.emu.control.failNext({ method: "PATCH" }, { status: 503 }, 1);
    await h.writeLocal("App.tsx", app.replace("// App line 3", "// my edit"));
    await h.emu.control.waitForRequest(isPatch, { timeoutMs: 10_000 });
    // The web editor saves another line while the client holds the 503.
    h.emu.control.editFile(h.editorId, "App.tsx", app.replace("// App line 15", "// web edit"));
    const both = (text: string | undefined): boolean => /my edit/.test(text ?? "") && /web edit/.test(text ?? "");
    await until(() => both(h!.remoteFiles()["App.tsx"]), 15_000, "both edits on the service");
    await until(async () => both(await h!.readLocal("App.tsx")), 15_000, "both edits in the folder");
  });
});

describe("a version built before a push of a new file", () => {
  it("removes the file as the new version says, and says so: the event names it and where it is kept", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    // The PATCH is held at the service for a moment; a version built from the files before it
    // becomes active meanwhile (a generation that started earlier).
    h.emu.control.failNext({ method: "PATCH" }, { delayMs: 300 }, 1);
    const since = h.mark();
    await h.writeLocal("components/New.tsx", "export function New() { return null; }\n");
    await h.emu.control.waitForRequest(isPatch, { timeoutMs: 10_000 });
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES }, { newArtifact: true, title: "generation" });
    const event = await h.waitForEvent((e) => e.event === "conflict" && e.files?.includes("components/New.tsx") === true, { since, timeoutMs: 15_000 });
    expect(event.message).toContain("the new version was built without this file you pushed");
    // Said before the cycle writes (a kill in between must not lose the report), then removed.
    await until(async () => (await h!.readLocal("components/New.tsx")) === undefined, 10_000, "the file removed");
    const backups = await readdir(join(h.root, ".mpsync/backups"), { recursive: true });
    expect(backups.some((p) => String(p).endsWith(join("components", "New.tsx")))).toBe(true);
  });
});

describe("a version built after our push was visible (sync/other-writers.ts)", () => {
  const mine = STARTER_FILES["App.tsx"]!.replace("// App line 3", "// my edit");
  const statusPolls = (): number => h!.emu.control.countRequests((e) => e.path.endsWith("/status"));

  it("started after the service was seen idle holding the push: the version's decision, pulled with nothing said", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    const since = h.mark();
    await h.writeLocal("App.tsx", mine);
    await h.waitForEvent((e) => e.event === "pushed", { since });
    // Two more status answers: the later one was surely asked for after the PATCH's answer.
    const polled = statusPolls();
    await until(() => statusPolls() >= polled + 2, 10_000, "idle status answers after the push");
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES }, { newArtifact: true, title: "generation" });
    await until(async () => (await h!.readLocal("App.tsx")) === STARTER_FILES["App.tsx"], 15_000, "the version pulled");
    expect(h.events.slice(since).filter((e) => e.event === "conflict")).toEqual([]);
  });

  it("asked for by the user after the push (prompt, checkout: .mpsync/asked.json): the version's decision, whatever the polls saw", async () => {
    // Polls far apart: no idle answer arrives between the push and the new version, which
    // the daemon learns of from `mpsync sync` (a full cycle now).
    h = await startHarness({ syncrc: { pollIntervalSec: 60 } });
    daemon = await startDaemon(h);
    const since = h.mark();
    await h.writeLocal("App.tsx", mine);
    await h.waitForEvent((e) => e.event === "pushed", { since });
    await until(async () => (await readFile(join(h!.root, ".mpsync", "state.json"), "utf8")).includes('"landed"'), 10_000, "the push recorded");
    await recordVersionIntent(h.root, "prompt", Date.now());
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES }, { newArtifact: true, title: "generation" });
    await daemon.workers[0]!.syncNow();
    expect(await h.readLocal("App.tsx")).toBe(STARTER_FILES["App.tsx"]);
    expect(h.events.slice(since).filter((e) => e.event === "conflict")).toEqual([]);
  });
});

describe("a new version named by a status answer", () => {
  it("is pulled from the files the answer listed, without asking for the active artifact again", async () => {
    h = await startHarness();
    daemon = await startDaemon(h);
    h.emu.control.resetRequestLog();
    const since = h.mark();
    h.emu.control.setFiles(h.editorId, { ...STARTER_FILES, "App.tsx": "export function App() { return <p>v2</p>; }\n" }, { newArtifact: true, title: "v2" });
    await h.waitForEvent((e) => e.event === "pulled" && e.files?.includes("App.tsx") === true, { since, timeoutMs: 15_000 });
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/active-artifact"))).toBe(0);
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/files/read"))).toBe(1);
  });
});

describe("the content check reads from the status listing", () => {
  it("finds a web edit in place from the listing the status answer gave: no active-artifact call", async () => {
    h = await startHarness({ syncrc: { remoteCheckSec: 0.3 } });
    daemon = await startDaemon(h);
    h.emu.control.resetRequestLog();
    const since = h.mark();
    h.emu.control.editFile(h.editorId, "index.css", "/* edited in the web editor */\n");
    await h.waitForEvent((e) => e.event === "pulled" && e.files?.includes("index.css") === true, { since, timeoutMs: 15_000 });
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/active-artifact"))).toBe(0);
  });
});

describe("a restarted daemon's content checks", () => {
  it("read first the files modified here in the last hour: a web edit of the file someone works on is not left to the sweep", async () => {
    // 60 files untouched for two hours (the sweep reads 6 of them a check, oldest-read first,
    // never-read by name) and "zz-hot.tsx", saved here a minute before the restart: by name
    // it is the sweep's last, about 10 checks away.
    const files: Record<string, string> = { "zz-hot.tsx": "export const hot = 1;\n" };
    for (let i = 0; i < 60; i += 1) files[`f${String(i).padStart(2, "0")}.ts`] = `export const f${i} = ${i};\n`;
    h = await startHarness({ files, syncrc: { remoteCheckSec: 0.3 } });
    daemon = await startDaemon(h);
    await daemon.stop();
    daemon = undefined;
    const hoursAgo = (Date.now() - 2 * 3600_000) / 1000;
    for (const name of Object.keys(files)) await utimes(join(h.root, name), hoursAgo, hoursAgo);
    const minuteAgo = (Date.now() - 60_000) / 1000;
    await utimes(join(h.root, "zz-hot.tsx"), minuteAgo, minuteAgo);

    const since = h.mark();
    daemon = new WatchDaemon({ runtime: await h.newRuntime(), dirs: [], emit: h.emit, retry: { baseMs: 50, maxMs: 400 } });
    await daemon.start();
    await h.waitForEvent((e) => e.event === "ready", { since });
    h.emu.control.resetRequestLog();
    h.emu.control.editFile(h.editorId, "zz-hot.tsx", "export const hot = 2; // web\n");
    await h.waitForEvent((e) => e.event === "pulled" && e.files?.includes("zz-hot.tsx") === true, { since, timeoutMs: 15_000 });
    // The check in flight when the edit landed may have read the old text: at most the next one finds it.
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/files/read"))).toBeLessThanOrEqual(2);
  });
});
