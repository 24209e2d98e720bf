/**
 * A full disk. The mapped folder lives on a real, small tmpfs (mounted for the test:
 * the suite runs as root here) that is filled to the last byte while `watch` runs. The daemon
 * says once that the disk is full, what waits and that sync resumes by itself; once space is
 * freed the edit goes out and one line says so.
 */
import { execFileSync } from "node:child_process";
import { mkdir, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { codeOf, startDaemon, startHarness, type Harness } from "../support/harness.js";

let h: Harness;
let daemon: WatchDaemon | undefined;
let mounted: string | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  if (mounted !== undefined) execFileSync("umount", ["-l", mounted]);
  mounted = undefined;
  await h?.close();
});

/** Mounts a tmpfs of `size` at `dir` (a real file system that fills up). */
async function mountSmallDisk(dir: string, size: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    throw new Error(`this test mounts a small tmpfs to fill a disk for real, which needs root (or CAP_SYS_ADMIN): ${String(err)}`);
  }
  mounted = dir;
}

/** Writes `path` until the file system refuses (ENOSPC). */
async function fillDisk(path: string): Promise<void> {
  const handle = await open(path, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) await handle.write(chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    await handle.close().catch(() => undefined);
  }
  // The last partial chunk may have fitted a few bytes: fill those too.
  const tail = await open(`${path}.tail`, "w");
  try {
    for (;;) await tail.write(Buffer.alloc(512, 1));
  } catch {
    // full
  } finally {
    await tail.close().catch(() => undefined);
  }
}

describe("a full disk", () => {
  it("is said once (what waits, that it resumes by itself), and sync resumes once space is freed", async () => {
    h = await startHarness({ syncrc: { debounceMs: 1500, ignore: ["filler.bin*"] } });
    await mountSmallDisk(h.root, "2m");
    daemon = await startDaemon(h);
    const mark = h.mark();
    // Saved before the disk fills; its push (and the journal entry it needs) comes after.
    await h.writeLocal("index.css", "/* an edit on a full disk */\n");
    await fillDisk(join(h.root, "filler.bin"));
    const full = await h.waitForEvent((e) => e.event === "error" && e.code === "DISK_FULL", { since: mark, timeoutMs: 15_000 });
    expect(full.message).toMatch(
      /^the disk holding design is full \(ENOSPC\): its pushes and pulls wait, .*your edits stay on disk; sync resumes by itself once space is freed \(next try in [\d.]+ s\)$/,
    );
    // Several retries later (the push fails before any request now: its texts are journalled
    // before the remote read), still that one line: ten status polls span several backoffs.
    const polls = (): number => h.emu.control.countRequests((e) => e.path.endsWith("/status"));
    const before = polls();
    await h.emu.control.waitForRequest(() => polls() >= before + 10, { timeoutMs: 15_000 });
    expect(h.events.slice(mark).filter((e) => e.event === "error")).toHaveLength(1);
    expect(h.remoteFiles()["index.css"]).not.toBe("/* an edit on a full disk */\n");
    // Space is freed: the edit goes out, and one line says sync resumed.
    await rm(join(h.root, "filler.bin"));
    await rm(join(h.root, "filler.bin.tail"));
    const resumed = await h.waitForEvent((e) => codeOf(e) === "RESUMED", { since: mark, timeoutMs: 15_000 });
    expect(resumed.message).toBe("the disk has space again: sync resumed");
    await h.waitForEvent((e) => e.event === "pushed", { since: mark, timeoutMs: 15_000 });
    expect(h.remoteFiles()["index.css"]).toBe("/* an edit on a full disk */\n");
    expect(h.events.slice(mark).filter((e) => e.event === "error")).toHaveLength(1);
  });
});
