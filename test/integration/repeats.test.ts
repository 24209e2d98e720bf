/**
 * A daemon left running for days must not repeat itself. A state that lasts (a
 * halt, a path that cannot be written) is said once when it begins and once when it ends, and
 * a path whose write keeps failing gets one backup, not one per retry. The real daemon on a
 * real folder against the emulator.
 */
import { execFileSync } from "node:child_process";
import { chmod, readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { codeOf, lines, startDaemon, startHarness, STARTER_FILES, type Harness } from "../support/harness.js";
import { removeAtOnce } from "../support/temp-dir.js";

let h: Harness;
let daemon: WatchDaemon | undefined;
let unlock: (() => Promise<void>) | undefined;
afterEach(async () => {
  await unlock?.();
  unlock = undefined;
  await daemon?.stop();
  daemon = undefined;
  await h?.close();
});

/**
 * Makes `path` impossible to replace: immutable (chattr +i) as root, whom permissions do not
 * stop; otherwise a read-only parent folder. Returns the undo.
 */
async function makeUnwritable(path: string): Promise<() => Promise<void>> {
  if (process.getuid?.() === 0) {
    execFileSync("chattr", ["+i", path]);
    return async () => void execFileSync("chattr", ["-i", path]);
  }
  await chmod(dirname(path), 0o555);
  return () => chmod(dirname(path), 0o755);
}

/** Resolves after `n` more content checks (files/read requests) reached the emulator. */
async function moreChecks(n: number): Promise<void> {
  const isRead = (e: { path: string }): boolean => e.path.endsWith("/files/read");
  const start = h.emu.control.countRequests(isRead);
  await h.emu.control.waitForRequest((e) => isRead(e) && h.emu.control.countRequests(isRead) >= start + n, { timeoutMs: 15_000 });
  await daemon!.workers[0]!.idle();
}

/** Every backup of `rel` under .mpsync/backups/ (one folder per cycle stamp). */
async function backupsOf(rel: string): Promise<string[]> {
  const stamps = await readdir(join(h.root, ".mpsync", "backups")).catch(() => [] as string[]);
  const found: string[] = [];
  for (const s of stamps) {
    const names = await readdir(join(h.root, ".mpsync", "backups", s)).catch(() => [] as string[]);
    found.push(...names.filter((n) => n === rel || n.startsWith(`${rel}.`)).map((n) => `${s}/${n}`));
  }
  return found;
}

describe("a path that cannot be written", () => {
  it("gets one error and one backup however often it is retried, and one line when it is written", async () => {
    h = await startHarness({ syncrc: { remoteCheckSec: 0.1 } });
    daemon = await startDaemon(h);
    unlock = await makeUnwritable(join(h.root, "index.css"));
    h.emu.control.editFile(h.editorId, "index.css", "/* a remote edit that cannot land yet */\n");
    await h.waitForEvent((e) => e.event === "error" && (e.files ?? []).includes("index.css"));
    await moreChecks(5);
    expect(h.events.filter((e) => e.event === "error" && (e.files ?? []).includes("index.css"))).toHaveLength(1);
    expect(await backupsOf("index.css")).toHaveLength(1);
    // The cause goes: it is written, said once, and no further backup of the same content appears.
    const mark = h.mark();
    await unlock();
    unlock = undefined;
    await h.waitForEvent((e) => e.event === "notice" && e.code === "RESUMED" && (e.files ?? []).includes("index.css"), { since: mark });
    expect(await h.readLocal("index.css")).toBe("/* a remote edit that cannot land yet */\n");
    expect(await backupsOf("index.css")).toHaveLength(1);
  });
});

describe("a halted design", () => {
  it("says `halted` once while it lasts, and `resumed` once when the cause is gone", async () => {
    h = await startHarness({ syncrc: { remoteCheckSec: 0.1 } });
    daemon = await startDaemon(h);
    h.emu.control.setFiles(h.editorId, { "App.tsx": lines("only", 2) }, { newArtifact: true, title: "oops" });
    await h.waitForEvent((e) => e.event === "halted");
    await moreChecks(5);
    expect(h.events.filter((e) => e.event === "halted")).toHaveLength(1);
    // Someone picks the full version again in the web editor: the breaker no longer trips.
    const mark = h.mark();
    h.emu.control.setFiles(h.editorId, STARTER_FILES, { newArtifact: true, title: "back" });
    const resumed = await h.waitForEvent((e) => e.event === "notice" && e.code === "RESUMED", { since: mark });
    expect(resumed.message).toMatch(/^resumed: syncs again; it needed attention: the pull would remove/);
    await moreChecks(3);
    expect(h.events.filter((e) => codeOf(e) === "RESUMED")).toHaveLength(1);
    expect(h.events.filter((e) => e.event === "halted")).toHaveLength(1);
  });

  it("a vanished folder: `halted` once, however many polls see it missing", async () => {
    h = await startHarness({ syncrc: { remoteCheckSec: 0.1 } });
    daemon = await startDaemon(h);
    await removeAtOnce(h.root);
    await h.waitForEvent((e) => e.event === "halted");
    await moreChecks(5);
    expect(h.events.filter((e) => e.event === "halted")).toHaveLength(1);
  });
});
