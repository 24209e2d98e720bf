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
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await clock.advance(100);
    }
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

describe("PollScheduler.follow: watchers sharing one design's poll limit", () => {
  type Answer = { version: number; at: number };
  const asAnswer = (x: unknown): Answer | undefined => (typeof x === "object" && x !== null && "version" in x ? (x as Answer) : undefined);

  /** Runs fake time forward in small steps, letting every woken continuation finish. */
  async function elapse(clock: ReturnType<typeof createFakeClock>, ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 50) {
      await clock.advance(50);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** A watcher's loop: every answer it gets, with the fake time it got it. */
  function watch(next: () => Promise<Answer>, signal: AbortSignal): { heard: { at: number; answer: Answer }[]; done: Promise<void> } {
    const heard: { at: number; answer: Answer }[] = [];
    const done = (async () => {
      while (!signal.aborted) heard.push({ at: -1, answer: await next() });
    })().catch(() => undefined);
    return { heard, done };
  }

  const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => t - (times[i] ?? 0));

  it("a wall clock set back 2 h: each next answer comes within two intervals, not 2 h later, and the one recorded before never again", async () => {
    const fake = createFakeClock();
    let skew = 0;
    // The wall clock moves with `skew`; sleeps and the monotonic clock do not.
    const clock = { ...fake, now: () => fake.now() + skew };
    const scheduler = new PollScheduler({ intervalMs: 1000, clock, ledger: createMemoryPollLedger() });
    const follower = scheduler.follow("d", asAnswer);
    let fetched = 0;
    const fetch = (): Promise<Answer> => Promise.resolve({ version: ++fetched, at: clock.now() });
    await follower.next(fetch);
    skew = -2 * 3600_000;
    // Its own interval, then one more: the poll recorded 2 h "in the future" waits one interval
    // (never more). And the answer recorded then is not fresh: the ledger keeps the latest time,
    // so it came back after every poll (the daemon soak, seed 41, heard 2, 1, 3, 1 and pulled
    // an old version and the new one in turn, a backup folder each time, until the disk was full).
    const heard: number[] = [];
    for (let i = 0; i < 4; i++) {
      const next = follower.next(fetch);
      await elapse(fake, 2100);
      heard.push((await next).version);
    }
    expect(heard).toEqual([2, 3, 4, 5]);
  });

  it("an answer another process recorded in the future (its clock ahead, or ours set back) is never taken: the follower polls", async () => {
    const clock = createFakeClock();
    const ledger = createMemoryPollLedger();
    await ledger.setAnswer?.("d", { at: clock.now() + 2 * 3600_000, answer: { version: 99, at: 0 } });
    const scheduler = new PollScheduler({ intervalMs: 1000, clock, ledger });
    let fetched = 0;
    const answer = await scheduler.follow("d", asAnswer).next(() => Promise.resolve({ version: ++fetched, at: clock.now() }));
    expect(answer.version).toBe(1);
    expect(fetched).toBe(1);
  });

  it("two folders on one design in one process: each hears every interval, from one poll per interval (poll() alone: every two)", async () => {
    for (const mode of ["follow", "poll"] as const) {
      const clock = createFakeClock();
      const scheduler = new PollScheduler({ intervalMs: 1000, clock, ledger: createMemoryPollLedger() });
      let fetches = 0;
      const fetch = async (): Promise<Answer> => ({ version: ++fetches, at: clock.now() });
      const stop = new AbortController();
      const watchers = [0, 1].map(() => {
        const follower = scheduler.follow("d", asAnswer);
        return watch(() => (mode === "follow" ? follower.next(fetch, stop.signal) : scheduler.poll("d", fetch, { signal: stop.signal })), stop.signal);
      });
      await elapse(clock, 10_000);
      stop.abort();
      await Promise.all(watchers.map((w) => w.done));
      const spacing = watchers.map((w) => Math.max(...gaps(w.heard.map((h) => h.answer.at))));
      if (mode === "follow") {
        expect(fetches).toBeLessThanOrEqual(11); // at most one poll per interval over 10 intervals
        expect(spacing).toEqual([1000, 1000]);
      } else {
        expect(spacing).toEqual([2000, 2000]); // the defect: a folder learns a new version one interval per folder late
      }
    }
  });

  it("two processes with different intervals: the slower hears within its own interval, the service one poll per shorter interval at most", async () => {
    const clock = createFakeClock();
    const ledger = createMemoryPollLedger();
    const fast = new PollScheduler({ intervalMs: 1000, clock, ledger });
    const slow = new PollScheduler({ intervalMs: 5000, clock, ledger });
    const fetchedAt: number[] = [];
    let version = 1;
    const fetch = async (): Promise<Answer> => {
      fetchedAt.push(clock.now());
      return { version, at: clock.now() };
    };
    const stop = new AbortController();
    const fastFollower = fast.follow("d", asAnswer);
    const fastWatch = watch(() => fastFollower.next(fetch, stop.signal), stop.signal);
    await elapse(clock, 300);
    const slowFollower = slow.follow("d", asAnswer);
    const slowWatch = watch(() => slowFollower.next(fetch, stop.signal), stop.signal);
    await elapse(clock, 7000);
    version = 2;
    const changedAt = clock.now();
    await elapse(clock, 12_000);
    stop.abort();
    await Promise.all([fastWatch.done, slowWatch.done]);
    expect(Math.min(...gaps(fetchedAt))).toBeGreaterThanOrEqual(1000);
    const slowTimes = slowWatch.heard.map((h) => h.answer.at);
    expect(Math.max(...gaps(slowTimes))).toBeLessThanOrEqual(5000);
    const learned = slowWatch.heard.find((h) => h.answer.version === 2);
    expect(learned).toBeDefined();
    expect((learned?.answer.at ?? Infinity) - changedAt).toBeLessThanOrEqual(5000);
  });

  it("takes another watcher's recent answer instead of polling, but never one from before `after`", async () => {
    const clock = createFakeClock();
    const scheduler = new PollScheduler({ intervalMs: 1000, clock, ledger: createMemoryPollLedger() });
    let fetches = 0;
    const fetch = async (): Promise<Answer> => ({ version: ++fetches, at: clock.now() });
    await scheduler.poll("d", fetch);
    await clock.advance(100);
    expect(await scheduler.follow("d", asAnswer).next(fetch)).toEqual({ version: 1, at: clock.now() - 100 });
    expect(fetches).toBe(1);
    const waiting = scheduler.follow("d", asAnswer, { after: clock.now() }).next(fetch);
    await elapse(clock, 1000);
    expect((await waiting).version).toBe(2);
  });
});
