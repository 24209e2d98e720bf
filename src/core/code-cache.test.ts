import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeCacheDir, MIN_CACHE_GROWTH_BYTES, shouldGrowCache } from "./code-cache.js";

const DIST = resolve(fileURLToPath(new URL("../../dist", import.meta.url)));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mpsync-code-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs `lib.cjs` in a new node process through the built runCachedCommonJs (the cache is
 * written at exit): what `call` of its exports returned, and whether V8 took the cache.
 */
function run(cacheDir: string | undefined, call = "answer(20)"): { answer: unknown; used: boolean | undefined; path: string | undefined } {
  const script = `
    import { runCachedCommonJs } from ${JSON.stringify(`${DIST}/core/code-cache.js`)};
    let use;
    const lib = runCachedCommonJs(${JSON.stringify(join(dir, "lib.cjs"))}, ${JSON.stringify(cacheDir)}, (u) => (use = u));
    console.log(JSON.stringify({ answer: lib.${call}, used: use.used, path: use.path }));`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout) as { answer: unknown; used: boolean; path: string | undefined };
}

describe("runCachedCommonJs", () => {
  beforeEach(() => {
    writeFileSync(
      join(dir, "lib.cjs"),
      `"use strict";\nconst { join } = require("node:path");\nexports.answer = (n) => [n + 22, typeof join, __filename.endsWith("lib.cjs"), this === module.exports];\n`,
    );
  });

  it("compiles the first time, saves V8's code at exit, and takes it from the cache after", () => {
    const cache = join(dir, "cache");
    const first = run(cache);
    expect(first).toMatchObject({ answer: [42, "function", true, true], used: false });
    expect(readdirSync(cache)).toEqual([expect.stringMatching(/^lib-[0-9a-f]{16}\.v8$/)]);
    expect(run(cache)).toMatchObject({ answer: [42, "function", true, true], used: true, path: first.path });
  });

  it("a damaged cache is refused by V8, the file still runs, and the cache is written again", () => {
    const cache = join(dir, "cache");
    const { path } = run(cache);
    writeFileSync(path ?? "", Buffer.alloc(5000, 7));
    expect(run(cache)).toMatchObject({ answer: [42, "function", true, true], used: false });
    expect(run(cache)).toMatchObject({ used: true });
  });

  it("a changed file gets a cache of its own; old ones beyond three are removed", () => {
    const cache = join(dir, "cache");
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(dir, "lib.cjs"), `exports.answer = (n) => n + ${i};\n`);
      utimesSync(join(dir, "lib.cjs"), new Date(), new Date(Date.now() + i * 1000));
      expect(run(cache)).toMatchObject({ answer: 20 + i, used: false });
    }
    expect(readdirSync(cache)).toHaveLength(4);
  });

  it("a later run that compiles much more than the cache held grows it; one that compiles nothing new leaves it", () => {
    // 3,000 functions only `more()` calls: the first run, `answer`, compiles none of them.
    const count = 3000;
    const fns = Array.from({ length: count }, (_, i) => `function f${i}(x) { const y = x * ${i} + ${i % 7}; return y > ${i} ? [y, "f${i}"].length : y - 1; }`);
    const calls = Array.from({ length: count }, (_, i) => `s += f${i}(${i});`);
    writeFileSync(
      join(dir, "lib.cjs"),
      `"use strict";\nexports.answer = (n) => n + 22;\n${fns.join("\n")}\nexports.more = () => { let s = 0;\n${calls.join("\n")}\nreturn s; };\n`,
    );
    const cache = join(dir, "cache");
    const { path } = run(cache);
    const file = path ?? "";
    const small = readFileSync(file);
    const sameFile = () => ({ bytes: readFileSync(file), mtimeMs: statSync(file).mtimeMs, ino: statSync(file).ino });

    const again = sameFile();
    expect(run(cache)).toMatchObject({ answer: 42, used: true });
    expect(sameFile()).toEqual(again);

    expect(run(cache, "more()")).toMatchObject({ answer: 5997, used: true });
    const grown = readFileSync(file);
    expect(grown.length).toBeGreaterThan(small.length * 2);
    expect(readdirSync(cache)).toHaveLength(1);

    const settled = sameFile();
    expect(run(cache, "more()")).toMatchObject({ answer: 5997, used: true });
    expect(run(cache)).toMatchObject({ answer: 42, used: true });
    expect(sameFile()).toEqual(settled);
  });

  it("a cache folder that cannot be made or written costs nothing but the cache", () => {
    writeFileSync(join(dir, "blocked"), "a file where the folder should be");
    expect(run(join(dir, "blocked", "cache"))).toMatchObject({ answer: [42, "function", true, true], used: false });
    const none = run(undefined);
    expect(none).toMatchObject({ answer: [42, "function", true, true], used: false });
    expect(none.path).toBeUndefined();
  });

  it("the built CLI writes its cache where MPSYNC_CODE_CACHE_DIR says, and nothing with MPSYNC_CODE_CACHE=0", () => {
    const cli = (env: Record<string, string>) =>
      spawnSync(process.execPath, [join(DIST, "bin.js"), "--version"], { encoding: "utf8", env: { ...process.env, ...env } });
    mkdirSync(join(dir, "off"));
    expect(cli({ MPSYNC_CODE_CACHE: "0", MPSYNC_CODE_CACHE_DIR: join(dir, "off") }).status).toBe(0);
    expect(readdirSync(join(dir, "off"))).toEqual([]);
    expect(cli({ MPSYNC_CODE_CACHE_DIR: join(dir, "on") }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(readdirSync(join(dir, "on"))).toEqual([expect.stringMatching(/^cli-[0-9a-f]{16}\.v8$/)]);
  });
});

describe("shouldGrowCache", () => {
  const KB = 1024;
  it.each([
    // The numbers of the CLI bundle: `status` after a cache written by `--help`
    [{ held: 121 * KB, compiled: 705 * KB }, true],
    // `status` and `pull` with the cache `status` wrote: Node's own modules, little of the CLI
    [{ held: 529 * KB, compiled: 279 * KB }, false],
    [{ held: 529 * KB, compiled: 345 * KB }, false],
    // a small cache and a run that compiled little: below the floor
    [{ held: 10 * KB, compiled: MIN_CACHE_GROWTH_BYTES }, false],
    [{ held: 10 * KB, compiled: MIN_CACHE_GROWTH_BYTES + 1 }, true],
    [{ held: 2000 * KB, compiled: 1999 * KB }, false],
  ])("%j -> %s", (bytecode, grows) => {
    expect(shouldGrowCache(bytecode)).toBe(grows);
  });
});

describe("codeCacheDir", () => {
  const home = () => "/home/u";
  it.each([
    [{}, "linux", "/home/u/.cache/mpsync"],
    [{ XDG_CACHE_HOME: "/x/cache" }, "linux", "/x/cache/mpsync"],
    [{ XDG_CACHE_HOME: "relative/cache" }, "linux", "/home/u/.cache/mpsync"],
    [{}, "darwin", "/home/u/Library/Caches/mpsync"],
    [{ MPSYNC_CODE_CACHE_DIR: "/tmp/c" }, "linux", "/tmp/c"],
    [{ MPSYNC_CODE_CACHE: "0", MPSYNC_CODE_CACHE_DIR: "/tmp/c" }, "linux", undefined],
  ] as const)("%j on %s: %s", (env, platform, expected) => {
    expect(codeCacheDir(env, platform, home)).toBe(expected);
  });

  it("is undefined (no cache, no crash) when there is no home folder", () => {
    const none = (): string => {
      throw new Error("ENOENT: no such file or directory, uv_os_homedir");
    };
    expect(codeCacheDir({}, "linux", none)).toBeUndefined();
    expect(codeCacheDir({ XDG_CACHE_HOME: "/x" }, "linux", none)).toBe("/x/mpsync");
  });
});
