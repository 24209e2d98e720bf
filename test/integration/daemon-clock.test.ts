/**
 * A wall clock stepped back (NTP, a laptop waking, a user) must not stall the
 * daemon. The real daemon on a real folder against the emulator, with an injected clock whose
 * wall time jumps while its monotonic time runs on.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createSystemClock, type Clock } from "../../src/core/clock.js";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { Runtime } from "../../src/runtime.js";
import { startDaemonWithClock, startHarness, type Harness } from "../support/harness.js";

let h: Harness;
let daemon: WatchDaemon | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await runtime?.close();
  await h?.close();
});

/** The system clock, with its wall time moved by `jump.ms` (monotonic time is untouched). */
function jumpingClock(): Clock & { jump: (ms: number) => void } {
  const system = createSystemClock();
  let offset = 0;
  return { now: () => Date.now() + offset, monotonic: () => system.monotonic(), sleep: system.sleep, jump: (ms) => (offset += ms) };
}

async function startWith(clock: Clock): Promise<WatchDaemon> {
  const started = await startDaemonWithClock(h, clock);
  runtime = started.runtime;
  return started.daemon;
}

describe("a wall clock that jumps", () => {
  it.each([
    ["back 2 h", -2 * 3600_000],
    ["forward 2 h", 2 * 3600_000],
  ])("%s: the content check still runs every remoteCheckSec and pulls an in-place edit", async (_name, jumpMs) => {
    // One file: every content check reads it (check-scope.ts reads ceil(n / 10) of the files not
    // changed lately), so the edit is pulled by the first check after it, not after a sweep of
    // several checks, each slower on a loaded machine.
    h = await startHarness({ files: { "index.css": "body {}\n" }, syncrc: { remoteCheckSec: 0.3 } });
    const clock = jumpingClock();
    daemon = await startWith(clock);
    clock.jump(jumpMs);
    // An edit in the web editor's code view: no new version, only the content check sees it.
    const mark = h.mark();
    h.emu.control.editFile(h.editorId, "index.css", "/* edited in the web editor after the jump */\n");
    await h.waitForEvent((e) => e.event === "pulled" && (e.files ?? []).includes("index.css"), { since: mark });
    expect(await h.readLocal("index.css")).toBe("/* edited in the web editor after the jump */\n");
    // And it keeps checking: a second edit arrives too.
    const again = h.mark();
    h.emu.control.editFile(h.editorId, "index.css", "/* and again */\n");
    await h.waitForEvent((e) => e.event === "pulled" && (e.files ?? []).includes("index.css"), { since: again });
  });
});
