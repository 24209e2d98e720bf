/**
 * Other writers decided by what each writer saw (sync/other-writers.ts), on two real `mpsync
 * watch` processes, two folders, one design: a teammate's deliberate removal of a line it had
 * pulled stands (no push back, nothing said), and a PATCH of ours the service applies after a
 * newer one never erases the web edit merged since (it is recognised as ours, the latest content
 * goes out again).
 */
import { describe, expect, it } from "vitest";
import { STARTER_FILES, until, type Harness } from "../support/harness.js";
import { useWatches } from "../support/watch-harness.js";
import { landedOf } from "../support/folder-state.js";
import type { DaemonProcess } from "./daemon-process.js";

const SYNCRC = { debounceMs: 30, pollIntervalSec: 0.2, remoteCheckSec: 0.3 };
const APP = STARTER_FILES["App.tsx"]!;
const watches = useWatches();

const patches = (h: Harness): number => h.emu.control.countRequests((e) => e.method === "PATCH");
const reads = (h: Harness): number => h.emu.control.countRequests((e) => e.path.endsWith("/files/read"));

const saidAbout = (d: DaemonProcess, since: number, path: string): Record<string, unknown>[] =>
  d.events
    .slice(since)
    .filter(
      (e) =>
        (e["event"] === "conflict" || e["event"] === "notice") &&
        (e["files"] as string[] | undefined)?.includes(path) !== false &&
        JSON.stringify(e).includes(path),
    );

describe("a teammate's decision", () => {
  it("a line we pushed, pulled by the teammate and removed after our push was confirmed: the removal stands, no PATCH back, nothing said", async () => {
    const [ha, hb, da, db] = await watches.pair(SYNCRC);
    const added = APP.replace("// App line 3", "// App line 3\n// added by A");
    await ha.writeLocal("App.tsx", added);
    await until(async () => (await hb.readLocal("App.tsx")) === added, 20_000, "B pulls A's line");
    // A's read past the race window found its text: from here the line was visible to every reader.
    await until(async () => (await landedOf(ha.root, "App.tsx"))?.settled === true, 20_000, "A's push confirmed");
    const [sinceA, sinceB, before] = [da.events.length, db.events.length, patches(ha)];
    await hb.writeLocal("App.tsx", APP);
    await until(async () => (await ha.readLocal("App.tsx")) === APP, 20_000, "A pulls the removal");
    // Quiet: several content checks of both daemons later, only B's one PATCH went out.
    const seen = reads(ha);
    await until(() => reads(ha) >= seen + 6, 20_000, "both daemons' content checks");
    expect(patches(ha) - before).toBe(1);
    expect(ha.remoteFiles()["App.tsx"]).toBe(APP);
    expect(await hb.readLocal("App.tsx")).toBe(APP);
    expect([...saidAbout(da, sinceA, "App.tsx"), ...saidAbout(db, sinceB, "App.tsx")]).toEqual([]);
  });
});

describe("our own request applied late", () => {
  it("a PATCH the service holds and applies after our newer merge is recognised as ours: the web edit merged meanwhile stays, in both folders", async () => {
    const [ha, hb, da] = await watches.pair(SYNCRC);
    const since = da.events.length;
    // The service keeps the first PATCH and answers nothing: the client gives up on it.
    ha.emu.control.failNext({ method: "PATCH" }, { drop: true, late: true }, 1);
    await ha.writeLocal("App.tsx", APP.replace("// App line 3", "// my edit"));
    await ha.emu.control.waitForRequest((e) => e.method === "PATCH", { timeoutMs: 10_000 });
    // The web editor saves another line; the client's retry reads it and pushes the merge.
    ha.emu.control.editFile(ha.editorId, "App.tsx", APP.replace("// App line 15", "// web edit"));
    const both = (text: string | undefined): boolean => /my edit/.test(text ?? "") && /web edit/.test(text ?? "");
    await until(() => both(ha.remoteFiles()["App.tsx"]), 20_000, "the merge on the service");
    // Now the held PATCH lands: without the web edit.
    expect(await ha.emu.control.applyLateWrites()).toBe(1);
    expect(both(ha.remoteFiles()["App.tsx"])).toBe(false);
    await until(() => both(ha.remoteFiles()["App.tsx"]), 20_000, "the latest content sent again");
    await until(async () => both(await ha.readLocal("App.tsx")) && both(await hb.readLocal("App.tsx")), 20_000, "both edits in both folders");
    const late = await da.waitFor((e) => e["event"] === "notice" && /reached the service late/.test(String(e["message"])), { since, timeoutMs: 20_000 });
    expect(late["message"]).toBe("App.tsx: an earlier push of yours reached the service late and undid newer changes; the latest content was sent again");
  });
});
