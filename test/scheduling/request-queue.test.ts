import { describe, expect, it } from "vitest";
import { createRequestQueue, RequestQueueRegistry, type RateLimitedEvent } from "../../src/scheduling/request-queue.js";
import { hashApiKey } from "../../src/scheduling/key-hash.js";
import { createFakeClock } from "../api/http-test-server.js";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("RequestQueue", () => {
  it("runs at most `concurrency` tasks at once", async () => {
    const queue = createRequestQueue({ concurrency: 2 });
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((g) => queue.run(() => g.promise));
    await Promise.resolve();
    expect(queue.pending).toBe(2);
    expect(queue.size).toBe(1);
    gates.forEach((g) => g.resolve());
    await Promise.all(runs);
    expect(queue.pending).toBe(0);
  });

  it("pauseFor holds queued tasks until the clock passes, and reports it once per extension", async () => {
    const clock = createFakeClock();
    const queue = createRequestQueue({ clock, keyHash: "h" });
    const events: RateLimitedEvent[] = [];
    queue.onRateLimited((e) => events.push(e));
    queue.pauseFor(1000);
    queue.pauseFor(500); // shorter: ignored
    expect(queue.isPaused).toBe(true);
    expect(queue.pausedUntil).toBe(clock.now() + 1000);
    let ran = false;
    const task = queue.run(async () => {
      ran = true;
    });
    await clock.advance(999);
    expect(ran).toBe(false);
    queue.pauseFor(2000); // longer: extends from now
    await clock.advance(1500);
    expect(ran).toBe(false);
    await clock.advance(500);
    await task;
    expect(ran).toBe(true);
    expect(queue.isPaused).toBe(false);
    expect(queue.pausedUntil).toBeUndefined();
    expect(events.map((e) => e.delayMs)).toEqual([1000, 2000]);
    expect(events[0]?.keyHash).toBe("h");
  });

  it("removes an aborted task from the queue", async () => {
    const clock = createFakeClock();
    const queue = createRequestQueue({ clock });
    queue.pauseFor(1000);
    const controller = new AbortController();
    const task = queue.run(async () => "ran", { signal: controller.signal });
    controller.abort(new Error("cancelled"));
    await expect(task).rejects.toThrow("cancelled");
    expect(queue.size).toBe(0);
  });

  it("a throwing listener does not break pausing", () => {
    const queue = createRequestQueue({ clock: createFakeClock() });
    const off = queue.onRateLimited(() => {
      throw new Error("listener bug");
    });
    expect(() => queue.pauseFor(10)).not.toThrow();
    off();
  });

  it("validates concurrency", () => {
    expect(() => createRequestQueue({ concurrency: 0 })).toThrow("concurrency must be an integer >= 1, got 0");
  });
});

describe("RequestQueueRegistry", () => {
  it("gives one queue per key, keyed by its hash, and updates concurrency", () => {
    const registry = new RequestQueueRegistry({ clock: createFakeClock() });
    const a = registry.forKey("key-a", 2);
    expect(registry.forKey("key-a", 3)).toBe(a);
    expect(a.concurrency).toBe(3);
    expect(registry.forKey("key-b", 2)).not.toBe(a);
  });

  it("a pause of one key does not pause another", () => {
    const registry = new RequestQueueRegistry({ clock: createFakeClock() });
    registry.forKey("key-a").pauseFor(1000);
    expect(registry.forKey("key-a").isPaused).toBe(true);
    expect(registry.forKey("key-b").isPaused).toBe(false);
  });

  it("reports the key's hash, never the key", () => {
    const registry = new RequestQueueRegistry({ clock: createFakeClock() });
    const events: RateLimitedEvent[] = [];
    registry.forKey("secret-key").onRateLimited((e) => events.push(e));
    registry.forKey("secret-key").pauseFor(5);
    expect(events[0]?.keyHash).toBe(hashApiKey("secret-key"));
    expect(JSON.stringify(events)).not.toContain("secret-key");
  });
});
