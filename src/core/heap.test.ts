import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHeapSettler, fullCollection, MEMORY_FLAGS, SETTLE_DELAY_MS } from "./heap.js";

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

describe("V8 memory settings", () => {
  const heapModule = new URL("../../dist/core/heap.js", import.meta.url).href;
  /** Runs an ES module script in a child Node (V8 flags are process-wide), from the repository (for undici). */
  const child = (script: string, nodeArgs: string[] = []): string =>
    execFileSync(process.execPath, [...nodeArgs, "--input-type=module", "-e", script], { encoding: "utf8", cwd: new URL("../..", import.meta.url).pathname });

  it("puts back V8's own defaults", () => {
    const options = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
    for (const { reset } of MEMORY_FLAGS) {
      const name = reset.replace(/^--(no-)?/, "").replace(/=.*$/, "");
      const defaults = options.match(new RegExp(`\\n\\s+--${name} [^\\n]*\\n\\s+type: \\w+\\s+default: (\\S+)`));
      expect(defaults?.[1], name).toBe(reset);
    }
  });

  it("keeps a code cache written after the settings were put back usable by a process with V8's defaults", () => {
    const write = (restore: boolean): string =>
      [
        `const { keepMemoryLow, restoreV8Defaults } = await import(${JSON.stringify(heapModule)});`,
        "const { Script } = await import('node:vm');",
        "const script = new Script('function f() { return 1 + 1; } f();');",
        "keepMemoryLow();",
        restore ? "restoreV8Defaults();" : "",
        "process.stdout.write(script.createCachedData().toString('base64'));",
      ].join("\n");
    const rejected = (data: string): string =>
      child(
        `const { Script } = await import('node:vm'); console.log(new Script('function f() { return 1 + 1; } f();', { cachedData: Buffer.from(${JSON.stringify(data)}, 'base64') }).cachedDataRejected);`,
      ).trim();
    expect(rejected(child(write(true)))).toBe("false");
    expect(rejected(child(write(false)))).toBe("true");
  });

  it("keeps undici's llhttp WebAssembly in V8's baseline compiler from the process's first connection on", () => {
    // V8's trace names the compiler of each WebAssembly function it compiles; a few hundred
    // responses make V8 tier llhttp's parser up with its defaults.
    const run = (keep: boolean): string =>
      child(
        [
          `const { keepMemoryLowFromFirstConnection } = await import(${JSON.stringify(heapModule)});`,
          `if (${keep}) keepMemoryLowFromFirstConnection();`,
          "const { createServer } = await import('node:http');",
          "const { request } = await import('undici');",
          "const server = createServer((req, res) => res.end('x'.repeat(2000)));",
          "await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));",
          "for (let i = 0; i < 300; i++) await (await request(`http://127.0.0.1:${server.address().port}/`)).body.text();",
          "server.close();",
          "process.exit(0);",
        ].join("\n"),
        ["--trace-wasm-compilation-times"],
      );
    expect(run(false)).toMatch(/using TurboFan/);
    const kept = run(true);
    expect(kept).toMatch(/using Liftoff/);
    expect(kept).not.toMatch(/using TurboFan/);
  });
});
