import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeCacheDir, commandEntry, coversEntry, MAX_CACHE_ENTRIES, nodeCompileCache, readCache } from "./code-cache.js";

const DIST = resolve(fileURLToPath(new URL("../../dist", import.meta.url)));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mpsync-code-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs `lib.cjs` in a new node process through the built runCachedCommonJs (the cache is
 * written at exit): what `call` of its exports returned, and whether V8 took the cache. The run
 * names `entry` and exits with `exitCode`.
 */
function run(
  cacheDir: string | undefined,
  call = "answer(20)",
  { entry, exitCode = 0 }: { entry?: string; exitCode?: number } = {},
): { answer: unknown; used: boolean | undefined; path: string | undefined } {
  const script = `
    import { runCachedCommonJs } from ${JSON.stringify(`${DIST}/core/code-cache.js`)};
    let use;
    const options = { entry: ${JSON.stringify(entry)}, skipExitCodes: [2], onCache: (u) => (use = u) };
    const lib = runCachedCommonJs(${JSON.stringify(join(dir, "lib.cjs"))}, ${JSON.stringify(cacheDir)}, options);
    console.log(JSON.stringify({ answer: lib.${call}, used: use.used, path: use.path }));
    process.exitCode = ${exitCode};`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout) as { answer: unknown; used: boolean; path: string | undefined };
}

// Each run is a new Node process by design (the cache is written at exit and taken by the next
// process), up to five in a test, one compiling thousands of functions: each is short alone, but a
// process start waits for a core, and on a loaded two-core machine the default timeout is too short.
describe("runCachedCommonJs", { timeout: 60_000 }, () => {
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
    const { path } = run(cache);
    // Four older builds' caches (saving removes by name and age, never reading them): one run
    // stands for the four that would have written them.
    const old = [1, 2, 3, 4].map((i) => join(cache, `lib-${String(i).repeat(16)}.v8`));
    old.forEach((file, i) => {
      writeFileSync(file, "an older build's cache");
      utimesSync(file, new Date(), new Date(Date.now() - (i + 1) * 60_000));
    });
    writeFileSync(join(dir, "lib.cjs"), `exports.answer = (n) => n + 5;\n`);
    utimesSync(join(dir, "lib.cjs"), new Date(), new Date(Date.now() + 1000));
    const changed = run(cache);
    expect(changed).toMatchObject({ answer: 25, used: false });
    expect(changed.path).not.toBe(path);
    // Kept: the new one and the three newest others (the first run's, then old[0], old[1]).
    expect(readdirSync(cache).sort()).toEqual([changed.path, path, old[0], old[1]].map((p) => basename(p ?? "")).sort());
  });

  it("a run of an entry the cache does not name grows it, once; a run of a named entry, or one that failed to parse, leaves it", () => {
    // 3,000 functions only `more()` calls: the first run, `answer`, compiles none of them.
    const count = 3000;
    const fns = Array.from({ length: count }, (_, i) => `function f${i}(x) { const y = x * ${i} + ${i % 7}; return y > ${i} ? [y, "f${i}"].length : y - 1; }`);
    const calls = Array.from({ length: count }, (_, i) => `s += f${i}(${i});`);
    writeFileSync(
      join(dir, "lib.cjs"),
      `"use strict";\nexports.answer = (n) => n + 22;\n${fns.join("\n")}\nexports.more = () => { let s = 0;\n${calls.join("\n")}\nreturn s; };\n`,
    );
    const cache = join(dir, "cache");
    const { path } = run(cache, "answer(20)", { entry: "help" });
    const file = path ?? "";
    const small = readFileSync(file);
    expect(readCache(file)?.entries).toEqual(["help"]);
    // The file's bytes as one hex string: vitest compares a Buffer index by index, slowly.
    const sameFile = () => ({ bytes: readFileSync(file).toString("hex"), mtimeMs: statSync(file).mtimeMs, ino: statSync(file).ino });

    const again = sameFile();
    expect(run(cache, "answer(20)", { entry: "help" })).toMatchObject({ answer: 42, used: true });
    // A usage error (exit 2) ran no command: it names none.
    expect(run(cache, "more()", { entry: "status", exitCode: 2 })).toMatchObject({ answer: 5997, used: true });
    expect(sameFile()).toEqual(again);

    expect(run(cache, "more()", { entry: "status", exitCode: 5 })).toMatchObject({ answer: 5997, used: true });
    const grown = readFileSync(file);
    expect(grown.length).toBeGreaterThan(small.length * 2);
    expect(readCache(file)?.entries).toEqual(["help", "status"]);
    expect(readdirSync(cache)).toHaveLength(1);

    const settled = sameFile();
    expect(run(cache, "more()", { entry: "status" })).toMatchObject({ answer: 5997, used: true });
    expect(run(cache, "answer(20)")).toMatchObject({ answer: 42, used: true });
    expect(sameFile()).toEqual(settled);
  });

  it("a cache file without its first line (an older build's) is not handed to V8 and is written again", () => {
    const cache = join(dir, "cache");
    const { path } = run(cache);
    const file = path ?? "";
    const v8Data = readCache(file)?.data ?? Buffer.alloc(0);
    expect(v8Data.length).toBeGreaterThan(0);
    writeFileSync(file, v8Data);
    expect(readCache(file)).toBeUndefined();
    expect(run(cache)).toMatchObject({ answer: [42, "function", true, true], used: false });
    expect(run(cache)).toMatchObject({ used: true });
  });

  it("a cache folder that cannot be made or written costs nothing but the cache", () => {
    writeFileSync(join(dir, "blocked"), "a file where the folder should be");
    expect(run(join(dir, "blocked", "cache"))).toMatchObject({ answer: [42, "function", true, true], used: false });
    const none = run(undefined);
    expect(none).toMatchObject({ answer: [42, "function", true, true], used: false });
    expect(none.path).toBeUndefined();
  });

  it("the built CLI on Node's own compile cache with MPSYNC_CODE_CACHE=node where there is one (Node >= 22.1), in the same folder", () => {
    const cli = (env: Record<string, string>) =>
      spawnSync(process.execPath, [join(DIST, "bin.cjs"), "--version"], { encoding: "utf8", env: { ...process.env, ...env } });
    expect(cli({ MPSYNC_CODE_CACHE: "node", MPSYNC_CODE_CACHE_DIR: join(dir, "on") }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const written = readdirSync(join(dir, "on"));
    if (nodeCompileCache({ MPSYNC_CODE_CACHE: "node" }) === undefined) expect(written).toEqual([expect.stringMatching(/^cli-[0-9a-f]{16}\.v8$/)]);
    else expect(readdirSync(join(dir, "on", "node"), { recursive: true }).length).toBeGreaterThan(0);
    expect(nodeCompileCache({})).toBeUndefined();
  });

  it("the built CLI writes V8's code cache where MPSYNC_CODE_CACHE_DIR says, on any Node, and nothing with MPSYNC_CODE_CACHE=0", () => {
    const cli = (env: Record<string, string>, arg = "--version") =>
      spawnSync(process.execPath, [join(DIST, "bin.cjs"), arg], { encoding: "utf8", env: { ...process.env, MPSYNC_CODE_CACHE: "", ...env } });
    mkdirSync(join(dir, "off"));
    expect(cli({ MPSYNC_CODE_CACHE: "0", MPSYNC_CODE_CACHE_DIR: join(dir, "off") }).status).toBe(0);
    expect(readdirSync(join(dir, "off"))).toEqual([]);
    expect(cli({ MPSYNC_CODE_CACHE_DIR: join(dir, "on") }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const [name] = readdirSync(join(dir, "on"));
    expect(name).toMatch(/^cli-[0-9a-f]{16}\.v8$/);
    const file = join(dir, "on", name ?? "");
    const versionOnly = statSync(file).size;
    expect(readCache(file)?.entries).toEqual(["version"]);
    // The first `--help` finds a cache `--version` wrote: it compiles the program's help and adds it.
    expect(cli({ MPSYNC_CODE_CACHE_DIR: join(dir, "on") }, "--help").status).toBe(0);
    expect(readCache(file)?.entries).toEqual(["version", "help"]);
    expect(statSync(file).size).toBeGreaterThan(versionOnly);
  });
});

describe("commandEntry", () => {
  const VALUE_OPTIONS = ["-c", "--config", "--log-file"];
  it.each([
    [["status"], "status"],
    [["-c", "x.json", "status", "--json"], "status"],
    [["--config", "my design.json", "--log-file", "l.log", "pull", "web"], "pull"],
    [["--config=x.json", "-q", "watch"], "watch"],
    [["--help"], "help"],
    [["status", "--help"], "help"],
    [["help", "pull"], "help"],
    [[], "help"],
    [["-V"], "version"],
    [["a b"], "a_b"],
  ] as const)("%j -> %s", (args, entry) => {
    expect(commandEntry(args, VALUE_OPTIONS)).toBe(entry);
  });
});

describe("coversEntry", () => {
  const many = Array.from({ length: MAX_CACHE_ENTRIES }, (_, i) => `c${i}`);
  it.each([
    [["help"], "status", false],
    [["help", "status"], "status", true],
    [[], "status", false],
    // a run that names no entry (a library use): any cache V8 took is enough
    [[], undefined, true],
    // a full list stops growing: every entry counts as covered
    [many, "status", true],
    [many.slice(1), "status", false],
  ] as const)("%j, %s -> %s", (entries, entry, covered) => {
    expect(coversEntry(entries, entry)).toBe(covered);
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
