import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHeapSettler, fullCollection, SETTLE_DELAY_MS } from "./heap.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("heap settling", () => {
  it("collects once, SETTLE_DELAY_MS after the last of several calls", () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const settle = createHeapSettler(collect);
    settle();
    vi.advanceTimersByTime(SETTLE_DELAY_MS - 1);
    settle();
    vi.advanceTimersByTime(SETTLE_DELAY_MS - 1);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    settle();
    vi.advanceTimersByTime(SETTLE_DELAY_MS);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it("does nothing when no collection is available", () => {
    vi.useFakeTimers();
    const settle = createHeapSettler(null);
    settle();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gets V8's full collection on this Node, and it runs", () => {
    const gc = fullCollection();
    expect(typeof gc).toBe("function");
    expect(() => gc?.()).not.toThrow();
    expect(fullCollection()).toBe(gc);
  });

  it("keeps the young generation at its initial size while a process retains many objects", () => {
    // In a child process (V8 flags are process-wide; this worker keeps the defaults), on the
    // built module (npm test builds first).
    const newSpaceMiB = (limit: boolean): number => {
      const script = [
        `const { keepMemoryLow } = await import(${JSON.stringify(new URL("../../dist/core/heap.js", import.meta.url).href)});`,
        `if (${limit}) keepMemoryLow();`,
        "const keep = []; for (let i = 0; i < 300000; i++) keep.push({ i, s: 'x' + i });",
        "const v8 = await import('node:v8');",
        "console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576, keep.length);",
      ].join("\n");
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      return Number(out.split(" ")[0]);
    };
    expect(newSpaceMiB(true)).toBeLessThanOrEqual(2);
    expect(newSpaceMiB(false)).toBeGreaterThan(2);
  });
});
