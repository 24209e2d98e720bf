/**
 * keepBackupsDays on a real folder: the real daemon (real chokidar, the emulator on loopback)
 * and the one-shot pull and sync remove backup folders older than the limit, keep younger
 * ones, never touch conflicts/, apply a reloaded limit at once, and prune again about once a
 * day (an injected clock whose monotonic time jumps a day).
 */
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { syncHere, syncOnce, type OneShotView } from "../../src/app/one-shot.js";
import { createSystemClock, type Clock } from "../../src/core/clock.js";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { DAY_MS } from "../../src/local/backup-retention.js";
import { conflictSideName, recoveryStamp } from "../../src/local/recovery-layout.js";
import { Runtime } from "../../src/runtime.js";
import { startDaemonWithClock, startHarness, until, type Harness } from "../support/harness.js";

let h: Harness;
let daemon: WatchDaemon | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await runtime?.close();
  runtime = undefined;
  await h?.close();
});

/** The system clock, with its monotonic time moved by `skip` (the wall clock is untouched). */
function skippingClock(): Clock & { skip: (ms: number) => void } {
  const system = createSystemClock();
  let offset = 0;
  return { now: system.now, monotonic: () => system.monotonic() + offset, sleep: system.sleep, skip: (ms) => (offset += ms) };
}

const backupsDir = (): string => join(h.root, ".mpsync", "backups");
const conflictsDir = (): string => join(h.root, ".mpsync", "conflicts");
const backups = async (): Promise<string[]> => (await readdir(backupsDir()).catch(() => [] as string[])).sort();

/** A backup folder stamped `ageDays` ago (by the real wall clock), holding one file. */
async function plantBackup(ageDays: number, rel = "App.tsx"): Promise<string> {
  const stamp = recoveryStamp(Date.now() - ageDays * DAY_MS);
  await mkdir(join(backupsDir(), stamp), { recursive: true });
  await writeFile(join(backupsDir(), stamp, rel), `backup from ${ageDays} days ago\n`);
  return stamp;
}

async function setKeepDays(days: number): Promise<void> {
  const path = join(h.home, ".syncrc");
  const c = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
  await writeFile(`${path}.tmp`, JSON.stringify({ ...c, keepBackupsDays: days }, null, 2));
  await rename(`${path}.tmp`, path);
}

async function startWith(clock: Clock): Promise<WatchDaemon> {
  const started = await startDaemonWithClock(h, clock);
  runtime = started.runtime;
  return started.daemon;
}

const quietView: OneShotView = {
  pull: () => ({ update: () => undefined, stop: () => undefined }),
  pushing: () => () => undefined,
  idle: { polling: () => undefined, stop: () => undefined },
  handedOver: () => undefined,
};

async function pullOnce(): Promise<void> {
  const [mapping] = await h.runtime.mappings([]);
  const progress = { label: undefined, done: 0, total: 0, finished: [] };
  await syncOnce(h.runtime, mapping!, { kind: "pull", dryRun: false, force: false, emit: h.emit, progress, view: quietView });
}

describe("keepBackupsDays", () => {
  it("watch prunes at start: old stamp folders go, young ones, foreign names and conflicts stay", async () => {
    h = await startHarness();
    await pullOnce();
    const [old, older, young] = [await plantBackup(31), await plantBackup(400), await plantBackup(29)];
    await writeFile(join(backupsDir(), "notes.txt"), "the user's own\n");
    await mkdir(join(conflictsDir(), old), { recursive: true });
    await writeFile(join(conflictsDir(), old, conflictSideName("App.tsx", "local")), "unresolved work\n");
    expect(await backups()).toEqual([older, old, young, "notes.txt"].sort());

    daemon = await startWith(skippingClock());

    // Pruned beside the start-up sync (idle() waits for prunes too).
    await daemon.workers[0]!.idle();
    expect(await backups()).toEqual([young, "notes.txt"].sort());
    expect(await readFile(join(conflictsDir(), old, conflictSideName("App.tsx", "local")), "utf8")).toBe("unresolved work\n");
  });

  it("a running watch prunes again once a day has passed, and not before", async () => {
    h = await startHarness();
    const clock = skippingClock();
    daemon = await startWith(clock);
    const old = await plantBackup(45);
    // Status polls answered after the plant: each one is a chance to prune, and none may.
    const polls = (): number => h.emu.control.requests().filter((r) => r.path.endsWith("/status")).length;
    const seen = polls();
    await until(() => polls() >= seen + 3, 10_000, "three status polls");
    await daemon.workers[0]!.idle();
    expect(await backups()).toEqual([old]);

    clock.skip(DAY_MS);
    await until(async () => (await backups()).length === 0, 10_000, "the daily prune");
  });

  it("a reloaded keepBackupsDays applies at once; 0 keeps everything", async () => {
    h = await startHarness();
    daemon = await startWith(skippingClock());
    const [tenDays, twoDays] = [await plantBackup(10), await plantBackup(2)];
    await setKeepDays(0);
    expect(await daemon.reload()).toBe("reloaded .syncrc: applied keepBackupsDays");
    await daemon.workers[0]!.idle();
    expect(await backups()).toEqual([tenDays, twoDays].sort());

    await setKeepDays(5);
    expect(await daemon.reload()).toBe("reloaded .syncrc: applied keepBackupsDays");
    await daemon.workers[0]!.idle();
    expect(await backups()).toEqual([twoDays]);
  });

  it("one-shot pull and sync prune too, and a backups/ that cannot be read fails neither", async () => {
    h = await startHarness({ syncrc: { keepBackupsDays: 7 } });
    await pullOnce();
    const [old, young] = [await plantBackup(8), await plantBackup(6)];
    await pullOnce();
    expect(await backups()).toEqual([young]);

    const again = await plantBackup(9);
    const [mapping] = await h.runtime.mappings([]);
    await syncHere(h.runtime, mapping!, h.emit, quietView.idle);
    expect(await backups()).toEqual([young]);
    expect(old).not.toBe(again);

    // A file where backups/ should be: the prune fails (one warning), the pull does not (a
    // new file needs no backup; one that replaces a file would wait for its backup).
    await rename(backupsDir(), join(h.root, ".mpsync", "backups-moved"));
    await writeFile(backupsDir(), "not a folder\n");
    h.emu.control.editFile(h.editorId, "extra.css", "/* a teammate's new file */\n");
    await pullOnce();
    expect(await h.readLocal("extra.css")).toBe("/* a teammate's new file */\n");
  });
});
