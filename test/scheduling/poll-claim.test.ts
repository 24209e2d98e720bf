/**
 * The cross-process claim of a design's next status poll (poll-claim.ts) on a real temp folder,
 * and PollScheduler over shared ledgers as two processes would use them: of several due at
 * once exactly one polls, a dead or hung claimer is taken over, and wall clock jumps neither
 * stall nor multiply polls. Time is a fake clock; "processes" are ledgers with their own pid.
 */
import { link, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Clock } from "../../src/core/clock.js";
import { JsonMapFile } from "../../src/scheduling/json-map-file.js";
import { createFileClaims } from "../../src/scheduling/poll-claim.js";
import { POLL_RECORD_KEEP_MS } from "../../src/scheduling/poll-ledger.js";
import { createFilePollLedger, createMemoryPollLedger, PollScheduler, type PollLedger } from "../../src/scheduling/poll-scheduler.js";
import { createFakeClock } from "../api/http-test-server.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mpsync-claim-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type FakeClock = ReturnType<typeof createFakeClock>;

/** Runs fake time forward in small steps, letting every woken continuation (and file I/O) finish. */
async function elapse(clock: FakeClock, ms: number, step = 50): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Advances fake time until `promise` settles (file I/O takes real time between the steps). */
async function settle<T>(clock: FakeClock, promise: Promise<T>, maxMs = 60_000): Promise<T> {
  let done = false;
  const watched = promise.finally(() => void (done = true));
  for (let t = 0; !done && t < maxMs; t += 50) await elapse(clock, 50);
  return watched;
}

/** A fake clock whose wall time can jump while its monotonic time and sleeps run on. */
function jumping(fake: FakeClock): Clock & { jump(ms: number): void } {
  let skew = 0;
  return { now: () => fake.now() + skew, monotonic: fake.monotonic, sleep: fake.sleep, jump: (ms) => void (skew += ms) };
}

const asVersion = (x: unknown): number | undefined => (typeof x === "number" ? x : undefined);

describe("createFileClaims", () => {
  it("two processes claiming at once: exactly one holds it, the other sees who; after release the next may", async () => {
    for (let round = 0; round < 20; round++) {
      const a = createFileClaims(dir, { pid: 101, isAlive: () => true });
      const b = createFileClaims(dir, { pid: 102, isAlive: () => true });
      const [ca, cb] = await Promise.all([a.claim("design", 1000), b.claim("design", 1000)]);
      expect([ca.held, cb.held].filter(Boolean)).toHaveLength(1);
      const loser = ca.held ? cb : ca;
      expect(loser, `round ${round}`).toMatchObject({ held: false, since: 1000, alive: true });
      if (ca.held) await ca.release();
      if (cb.held) await cb.release();
      const again = await b.claim("design", 2000);
      expect(again.held).toBe(true);
      if (again.held) await again.release();
    }
  });

  it("tells a claim whose process is gone; breaking it removes only that claim", async () => {
    const dead = createFileClaims(dir, { pid: 4242 });
    const other = createFileClaims(dir, { pid: 7, isAlive: (pid) => pid !== 4242 });
    expect((await dead.claim("d", 5000)).held).toBe(true);
    const seen = await other.claim("d", 6000);
    if (seen.held) throw new Error("expected the dead process's claim");
    expect(seen).toMatchObject({ alive: false, since: 5000 });
    await other.breakClaim("d", "not the holder");
    expect((await other.claim("d", 6000)).held).toBe(false);
    await other.breakClaim("d", seen.holder);
    expect((await other.claim("d", 6000)).held).toBe(true);
  });

  it("a release after a takeover leaves the new holder's claim alone", async () => {
    const a = createFileClaims(dir, { pid: 1 });
    const b = createFileClaims(dir, { pid: 2 });
    const mine = await a.claim("d", 1);
    const seen = await b.claim("d", 2);
    if (!mine.held || seen.held) throw new Error("a holds");
    await b.breakClaim("d", seen.holder);
    const theirs = await b.claim("d", 3);
    expect(theirs.held).toBe(true);
    await mine.release();
    expect((await a.claim("d", 4)).held).toBe(false);
  });

  it("something else at the claim's path is another holder of unknown age, not an error", async () => {
    const claims = createFileClaims(dir, { pid: 1 });
    const first = await claims.claim("d", 1);
    const [name] = await readdir(dir);
    if (first.held) await first.release();
    await writeFile(join(dir, name ?? "x"), "garbage");
    expect(await claims.claim("d", 2)).toMatchObject({ held: false, since: undefined, alive: true });
  });
});

describe("PollScheduler across processes (claims)", () => {
  it.each([
    ["file ledgers on one folder", (pid: number): PollLedger => createFilePollLedger(join(dir, "polls.json"), { pid, isAlive: () => true })],
    [
      "one memory ledger",
      (() => {
        let shared: PollLedger | undefined;
        return (): PollLedger => (shared ??= createMemoryPollLedger());
      })(),
    ],
  ])("%s: two watchers due at once make one poll per interval, and each hears every interval", async (name, ledgerOf) => {
    const clock = createFakeClock();
    // 10 s, not 1 s: the file ledger's real I/O runs while fake time steps on (50 ms a step),
    // and a slow disk must not let a whole interval pass before the second watcher looks.
    const schedulers = [1, 2].map((pid) => new PollScheduler({ intervalMs: 10_000, clock, ledger: ledgerOf(pid) }));
    let fetches = 0;
    const fetch = async (): Promise<number> => {
      await new Promise((resolve) => setImmediate(resolve));
      return ++fetches;
    };
    const followers = schedulers.map((s) => s.follow("d", asVersion));
    const first = await settle(clock, Promise.all(followers.map((f) => f.next(fetch))));
    expect(fetches).toBe(1);
    expect(first).toEqual([1, 1]);
    const heard: number[][] = [[], []];
    const stop = new AbortController();
    const loops = followers.map(async (f, i) => {
      while (!stop.signal.aborted) heard[i]?.push(await f.next(fetch, stop.signal));
    });
    await elapse(clock, 100_000, 500);
    stop.abort();
    await Promise.all(loops.map((l) => l.catch(() => undefined)));
    expect(fetches).toBeLessThanOrEqual(11);
    // File I/O takes real time while the fake clock steps on, so only the memory ledger's answers are exactly every interval.
    if (name.startsWith("file")) return;
    // Each heard every poll, in order: none was skipped.
    for (const h of heard) {
      expect(h.length).toBeGreaterThanOrEqual(9);
      expect(Math.max(...h.slice(1).map((v, i) => v - (h[i] ?? 0)))).toBeLessThanOrEqual(1);
    }
  });

  it("a claimer killed mid-poll: another polls one interval after its claim, not sooner, not never", async () => {
    const clock = createFakeClock();
    const file = join(dir, "polls.json");
    const killed = new PollScheduler({ intervalMs: 1000, clock, ledger: createFilePollLedger(file, { pid: 4242 }) });
    const survivor = new PollScheduler({ intervalMs: 1000, clock, ledger: createFilePollLedger(file, { pid: 7, isAlive: (pid) => pid !== 4242 }) });
    // Its request never ends: the process died in it. Awaited until it has claimed and sent
    // (real file calls: on a loaded machine the survivor could otherwise claim first).
    await settle(
      clock,
      new Promise<void>((sent) => {
        void killed.poll("d", () => {
          sent();
          return new Promise<number>(() => undefined);
        });
      }),
    );
    // Measured from the claim's own time (file calls take real time while fake time steps on).
    const claims = join(dir, "polls.claims");
    const [held] = await readdir(claims);
    const claimedAt = (JSON.parse(await readlink(join(claims, held ?? ""), "utf8")) as { at: number }).at;
    let polledAt: number | undefined;
    const next = survivor.follow("d", asVersion).next(async () => {
      polledAt = clock.now();
      return 1;
    });
    expect(await settle(clock, next)).toBe(1);
    // Not sooner: the dead claimer's poll may have reached the service at its claim; not never.
    expect(polledAt! - claimedAt).toBeGreaterThanOrEqual(1000);
  });

  it("a live claimer that hangs is taken over once it outlived any poll (30 s), not before", async () => {
    const clock = createFakeClock();
    const ledger = createMemoryPollLedger();
    const hung = new PollScheduler({ intervalMs: 1000, clock, ledger });
    const other = new PollScheduler({ intervalMs: 1000, clock, ledger });
    void hung.poll("d", () => new Promise<number>(() => undefined));
    let fetches = 0;
    const next = other.follow("d", asVersion).next(async () => ++fetches);
    await elapse(clock, 29_000, 500);
    expect(fetches).toBe(0);
    await elapse(clock, 3000, 500);
    expect(await next).toBe(1);
  });

  it.each([
    ["back 2 h", -2 * 3600_000],
    ["forward 3 h", 3 * 3600_000],
  ])("wall clock %s: two processes still poll about once per interval and each hears within two", async (_name, jumpMs) => {
    const fake = createFakeClock();
    const clock = jumping(fake);
    const ledger = createMemoryPollLedger();
    const schedulers = [1, 2].map(() => new PollScheduler({ intervalMs: 1000, clock, ledger }));
    let fetches = 0;
    const fetch = async (): Promise<number> => ++fetches;
    const heardAt: number[][] = [[], []];
    const stop = new AbortController();
    const loops = schedulers.map(async (s, i) => {
      const f = s.follow("d", asVersion);
      for (;;) {
        await f.next(fetch, stop.signal);
        heardAt[i]?.push(fake.monotonic());
      }
    });
    await elapse(fake, 3000);
    clock.jump(jumpMs);
    const before = fetches;
    await elapse(fake, 10_000);
    stop.abort();
    await Promise.all(loops.map((l) => l.catch(() => undefined)));
    expect(fetches - before).toBeGreaterThanOrEqual(5);
    expect(fetches - before).toBeLessThanOrEqual(12);
    for (const times of heardAt) expect(Math.max(...times.slice(1).map((t, i) => t - (times[i] ?? 0)))).toBeLessThanOrEqual(2000);
  });
});

describe("createFilePollLedger files", () => {
  const oldTimes = z.record(z.string(), z.number().finite());
  const oldAnswers = z.record(z.string(), z.object({ at: z.number().finite(), answer: z.unknown() }));

  it("writes one file per poll whose answer repeats the last; the answers file only when it changes (a failed poll's is null)", async () => {
    const clock = createFakeClock();
    const file = join(dir, "polls.json");
    const scheduler = new PollScheduler({ intervalMs: 10, clock, ledger: createFilePollLedger(file) });
    const answersFile = join(dir, "polls.answers.json");
    const inode = async (f: string): Promise<number> => (await stat(f)).ino;
    await scheduler.poll("d", async () => ({ isGenerating: false }));
    // A hard link keeps each first file's inode in use, so a rewrite (temp file, rename) cannot
    // be given the same inode number again (the file system reuses a freed one at once).
    await link(file, join(dir, "times0"));
    await link(answersFile, join(dir, "answers0"));
    const [times0, answers0] = [await inode(join(dir, "times0")), await inode(join(dir, "answers0"))];
    for (let i = 0; i < 3; i++) {
      await clock.advance(10);
      await scheduler.poll("d", async () => ({ isGenerating: false }));
    }
    expect(await inode(answersFile)).toBe(answers0); // never rewritten
    expect(await inode(file)).not.toBe(times0); // rewritten (temp file, rename) every poll
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ d: clock.now() });
    await clock.advance(10);
    await expect(scheduler.poll("d", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(JSON.parse(await readFile(answersFile, "utf8"))).toEqual({ d: { at: clock.now(), answer: null } });
    const reader = createFilePollLedger(file);
    expect(await reader.getAnswer?.("d")).toEqual({ at: clock.now(), answer: null });
  });

  it("an older mpsync (0.1's schemas) reads the new files whole, and its writes are read back", async () => {
    const clock = createFakeClock();
    const file = join(dir, "polls.json");
    const scheduler = new PollScheduler({ intervalMs: 10, clock, ledger: createFilePollLedger(file) });
    await scheduler.poll("a", async () => 1);
    await scheduler.poll("b", async () => 2);
    const old = { times: new JsonMapFile(file, oldTimes), answers: new JsonMapFile(join(dir, "polls.answers.json"), oldAnswers) };
    expect(await old.times.read()).toEqual({ a: clock.now(), b: clock.now() });
    expect(await old.answers.read()).toEqual({ a: { at: clock.now(), answer: 1 }, b: { at: clock.now(), answer: 2 } });
    // The old release polls "a": time, then answer, as 0.1 does.
    await old.times.update((map) => ({ ...map, a: Math.max(clock.now() + 50, map["a"] ?? 0) }));
    await old.answers.update((map) => ({ ...map, a: { at: clock.now() + 50, answer: 9 } }));
    const ledger = createFilePollLedger(file);
    expect(await ledger.get("a")).toBe(clock.now() + 50);
    expect(await ledger.getAnswer?.("a")).toEqual({ at: clock.now() + 50, answer: 9 });
    expect(await ledger.get("b")).toBe(clock.now());
  });

  it("drops designs not polled for a week, keeps the others and those stamped in the future", async () => {
    const file = join(dir, "polls.json");
    const now = Date.UTC(2025, 5, 1);
    await mkdir(dir, { recursive: true });
    await writeFile(file, JSON.stringify({ old: now - POLL_RECORD_KEEP_MS - 1, recent: now - 3600_000, future: now + 3600_000 }));
    await writeFile(
      join(dir, "polls.answers.json"),
      JSON.stringify({ old: { at: now - POLL_RECORD_KEEP_MS - 1, answer: 1 }, recent: { at: now - 1, answer: 2 } }),
    );
    const ledger = createFilePollLedger(file);
    await ledger.set("d", now);
    await ledger.setAnswer?.("d", { at: now, answer: 3 });
    expect(Object.keys(JSON.parse(await readFile(file, "utf8")) as object).sort()).toEqual(["d", "future", "recent"]);
    expect(Object.keys(JSON.parse(await readFile(join(dir, "polls.answers.json"), "utf8")) as object).sort()).toEqual(["d", "recent"]);
  });
});
