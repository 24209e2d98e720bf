import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DebouncedBatch } from "../../src/watch/debounced-batch.js";

let batches: Set<string>[];
const make = (debounceMs: number, maxWaitMs?: number): DebouncedBatch =>
  new DebouncedBatch({ debounceMs, ...(maxWaitMs === undefined ? {} : { maxWaitMs }), onFlush: (s) => batches.push(s) });

beforeEach(() => {
  vi.useFakeTimers();
  batches = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe("DebouncedBatch", () => {
  it("delivers once after the quiet window (trailing), deduplicated", () => {
    const b = make(150);
    b.add("a.ts");
    vi.advanceTimersByTime(100);
    b.add("b.ts");
    b.add("a.ts");
    vi.advanceTimersByTime(149);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([new Set(["a.ts", "b.ts"])]);
    expect(b.pending).toBe(0);
  });

  it("tells onStart once per batch, when its first key arrives (the daemon warms its connection then)", () => {
    let starts = 0;
    const b = new DebouncedBatch({ debounceMs: 100, onFlush: (s) => batches.push(s), onStart: () => (starts += 1) });
    b.add("a.ts");
    b.add("b.ts");
    expect(starts).toBe(1);
    vi.advanceTimersByTime(100);
    b.add("c.ts");
    expect(starts).toBe(2);
  });

  it("flushes a never-ending stream at the max wait", () => {
    const b = make(100, 1000);
    for (let t = 0; t < 2500; t += 50) {
      b.add(`f${t}`);
      vi.advanceTimersByTime(50);
    }
    // Flushed at 1000 and 2000 (first add of each batch + max wait), rest still pending.
    expect(batches).toHaveLength(2);
    expect(batches[0]?.size).toBe(20);
    expect(b.pending).toBeGreaterThan(0);
    vi.advanceTimersByTime(100);
    expect(batches).toHaveLength(3);
    expect(batches.reduce((n, s) => n + s.size, 0)).toBe(50);
  });

  it("defaults the max wait to 10 x debounce", () => {
    const b = make(10);
    for (let t = 0; t < 100; t += 5) {
      b.add("x");
      vi.advanceTimersByTime(5);
    }
    expect(batches).toHaveLength(1);
  });

  it("flush() delivers at once; an empty flush delivers nothing", () => {
    const b = make(1000);
    b.flush();
    expect(batches).toEqual([]);
    b.add("a");
    b.flush();
    expect(batches).toEqual([new Set(["a"])]);
    vi.advanceTimersByTime(5000);
    expect(batches).toHaveLength(1);
  });

  it("an add during delivery starts the next batch", () => {
    const got: Set<string>[] = [];
    const b: DebouncedBatch = new DebouncedBatch({
      debounceMs: 10,
      onFlush: (s) => {
        got.push(s);
        if (got.length === 1) b.add("late");
      },
    });
    b.add("first");
    vi.advanceTimersByTime(10);
    vi.advanceTimersByTime(10);
    expect(got).toEqual([new Set(["first"]), new Set(["late"])]);
  });

  it("close() drops pending keys and ignores later adds", () => {
    const b = make(10);
    b.add("a");
    b.close();
    b.add("b");
    vi.advanceTimersByTime(1000);
    expect(batches).toEqual([]);
  });

  it("rejects a max wait shorter than the debounce", () => {
    expect(() => make(100, 50)).toThrow(RangeError);
    expect(() => make(-1)).toThrow(RangeError);
  });

  it("works with injected timers", () => {
    let now = 0;
    const pending: { fn: () => void; at: number }[] = [];
    const b = new DebouncedBatch({
      debounceMs: 5,
      onFlush: (s) => batches.push(s),
      timers: {
        now: () => now,
        setTimeout: (fn, ms) => {
          const t = { fn, at: now + ms };
          pending.push(t);
          return t;
        },
        clearTimeout: (h) => void pending.splice(pending.indexOf(h as (typeof pending)[number]), 1),
      },
    });
    b.add("a");
    now = 5;
    for (const t of pending.splice(0)) if (t.at <= now) t.fn();
    expect(batches).toEqual([new Set(["a"])]);
  });
});
