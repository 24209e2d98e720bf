import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFilePollLedger, createMemoryPollLedger, PollScheduler } from "../../src/scheduling/poll-scheduler.js";
import { createFakeClock } from "../api/http-test-server.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mpsync-poll-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("PollScheduler", () => {
  it("polls at once the first time, then waits out the interval", async () => {
    const clock = createFakeClock();
    const scheduler = new PollScheduler({ intervalMs: 60_000, clock, ledger: createMemoryPollLedger() });
    expect(await scheduler.delayUntilNextPoll("d1")).toBe(0);
    expect(await scheduler.poll("d1", async () => "first")).toBe("first");
    await clock.advance(10_000);
    expect(await scheduler.delayUntilNextPoll("d1")).toBe(50_000);
    expect(await scheduler.delayUntilNextPoll("d2")).toBe(0);
    let ran = false;
    const second = scheduler.poll("d1", async () => {
      ran = true;
    });
    await clock.advance(49_999);
    expect(ran).toBe(false);
    await clock.advance(1);
    await second;
    expect(ran).toBe(true);
  });

  it("serialises concurrent polls of one design, one interval apart", async () => {
    const clock = createFakeClock();
    const scheduler = new PollScheduler({ intervalMs: 100, clock, ledger: createMemoryPollLedger() });
    const times: number[] = [];
    const polls = [1, 2, 3].map(() => scheduler.poll("d", async () => void times.push(clock.now())));
    for (let i = 0; i < 3; i++) await clock.advance(100);
    await Promise.all(polls);
    expect(times.map((t) => t - (times[0] ?? 0))).toEqual([0, 100, 200]);
  });

  it("records a failed poll too, and the next caller still runs", async () => {
    const clock = createFakeClock();
    const scheduler = new PollScheduler({ intervalMs: 100, clock, ledger: createMemoryPollLedger() });
    await expect(scheduler.poll("d", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await scheduler.delayUntilNextPoll("d")).toBe(100);
  });

  it("a poll in the ledger's future waits one interval, not longer", async () => {
    const clock = createFakeClock();
    const ledger = createMemoryPollLedger();
    await ledger.set("d", clock.now() + 10 * 60_000);
    const scheduler = new PollScheduler({ intervalMs: 60_000, clock, ledger });
    expect(await scheduler.delayUntilNextPoll("d")).toBe(60_000);
  });

  it("aborting a waiting poll rejects without running it", async () => {
    const clock = createFakeClock();
    const scheduler = new PollScheduler({ intervalMs: 1000, clock, ledger: createMemoryPollLedger() });
    await scheduler.poll("d", async () => undefined);
    const controller = new AbortController();
    let ran = false;
    const waiting = scheduler.poll("d", async () => void (ran = true), { signal: controller.signal });
    await clock.advance(10);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    expect(ran).toBe(false);
  });

  it("shares the interval across schedulers (commands, restarts) through the file ledger", async () => {
    const clock = createFakeClock();
    const file = join(dir, "polls.json");
    const first = new PollScheduler({ intervalMs: 60_000, clock, ledger: createFilePollLedger(file) });
    await first.poll("d", async () => undefined);
    await clock.advance(20_000);
    const restarted = new PollScheduler({ intervalMs: 60_000, clock, ledger: createFilePollLedger(file) });
    expect(await restarted.delayUntilNextPoll("d")).toBe(40_000);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ d: clock.now() - 20_000 });
  });

  it("still spaces polls when the ledger cannot be written", async () => {
    const clock = createFakeClock();
    const ledger = { get: () => Promise.reject(new Error("EIO")), set: () => Promise.reject(new Error("EROFS")) };
    const scheduler = new PollScheduler({ intervalMs: 100, clock, ledger });
    await scheduler.poll("d", async () => undefined);
    expect(await scheduler.delayUntilNextPoll("d")).toBe(100);
  });
});

describe("createFilePollLedger", () => {
  it("reads a missing file as empty", async () => {
    expect(await createFilePollLedger(join(dir, "nope", "polls.json")).get("d")).toBeUndefined();
  });

  it("reads a corrupt file as empty and replaces it on the next write", async () => {
    const file = join(dir, "polls.json");
    await writeFile(file, '{"d": 12, "e": "not a number"', "utf8");
    const ledger = createFilePollLedger(file);
    expect(await ledger.get("d")).toBeUndefined();
    await ledger.set("d", 42);
    expect(await ledger.get("d")).toBe(42);
  });

  it("keeps every design of concurrent writes", async () => {
    const ledger = createFilePollLedger(join(dir, "polls.json"));
    await Promise.all(["a", "b", "c", "d"].map((id, i) => ledger.set(id, i + 1)));
    expect(JSON.parse(await readFile(join(dir, "polls.json"), "utf8"))).toEqual({ a: 1, b: 2, c: 3, d: 4 });
  });
});
