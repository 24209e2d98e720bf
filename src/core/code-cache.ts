/**
 * Runs a CommonJS file through V8's code cache: the first run compiles it and, at exit, saves
 * V8's compiled code (every function the run compiled); later runs hand that back to V8 instead
 * of compiling again. Node 20 has no compile cache of its own (Node 22's
 * `module.enableCompileCache` does the same for every module). The CLI is one such file
 * (`dist/cli.cjs`): `mpsync status` spent about a third of its time compiling.
 *
 * The cache is only an accelerator: V8 checks each file against the source, its own version and
 * its flags and refuses one that does not fit (then the file is compiled, and the cache written
 * again); a cache that cannot be read or written is simply not used.
 *
 * The first command writes the cache, and it holds only what that command compiled: `--help`
 * compiles a fifth of what `status` does, and every later `status` compiled the rest again.
 * So a run that took the cache and then compiled more than the cache gave it writes
 * the cache again, with everything it holds now (the old functions and the new ones).
 */
import { isAscii } from "node:buffer";
import { hash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import { getHeapCodeStatistics } from "node:v8";
import { constants, Script } from "node:vm";

/**
 * The folder of mpsync's code cache: `MPSYNC_CODE_CACHE_DIR`, else the user's cache folder
 * (`$XDG_CACHE_HOME/mpsync`, `~/.cache/mpsync`; `~/Library/Caches/mpsync` on macOS,
 * `%LOCALAPPDATA%\mpsync\Cache` on Windows). Undefined (no cache) with `MPSYNC_CODE_CACHE=0`.
 */
export function codeCacheDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, home: () => string = homedir): string | undefined {
  if (env.MPSYNC_CODE_CACHE === "0") return undefined;
  if (env.MPSYNC_CODE_CACHE_DIR !== undefined && env.MPSYNC_CODE_CACHE_DIR !== "") return env.MPSYNC_CODE_CACHE_DIR;
  try {
    if (platform === "win32") return join(env.LOCALAPPDATA ?? join(home(), "AppData", "Local"), "mpsync", "Cache");
    if (platform === "darwin") return join(home(), "Library", "Caches", "mpsync");
    const xdg = env.XDG_CACHE_HOME;
    return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home(), ".cache"), "mpsync");
  } catch {
    // No home folder (os.homedir() throws without HOME and a passwd entry): no cache.
    return undefined;
  }
}

/** What runCachedCommonJs did with the cache (its tests ask). */
export interface CodeCacheUse {
  /** The cache file of this source, or undefined without a cache folder. */
  path: string | undefined;
  /** A cache was found and V8 took it. */
  used: boolean;
}

/**
 * Runs `file` as a CommonJS module and returns its exports. With `cacheDir`, its compiled code
 * is taken from the cache there, or written there when this process exits.
 */
export function runCachedCommonJs(file: string, cacheDir: string | undefined, onCache?: (use: CodeCacheUse) => void): unknown {
  const bytes = readFileSync(file);
  // ASCII (as the CLI bundle is) is read as a one-byte string: no UTF-8 decoding, half the memory.
  const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const path = cacheDir === undefined ? undefined : join(cacheDir, cacheName(file, source));
  const cachedData = path === undefined ? undefined : readOrUndefined(path);
  const bytecodeBefore = cachedData === undefined ? 0 : bytecodeBytes();
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
    // The bundle may import() what it leaves outside (esbuild, for the emulator's publish check).
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const used = cachedData !== undefined && script.cachedDataRejected !== true;
  onCache?.({ path, used });
  // At exit, the cache holds every function this run compiled, not only the top level.
  if (path !== undefined && !used) process.once("exit", () => saveCache(path, script.createCachedData()));
  if (path !== undefined && cachedData !== undefined && used) {
    // What V8 built from the cache, and the mark to measure this run's own compiling from.
    const bytecodeLoaded = bytecodeBytes();
    const held = bytecodeLoaded - bytecodeBefore;
    process.once("exit", () => growCache(path, script, cachedData, { held, compiled: bytecodeBytes() - bytecodeLoaded }));
  }
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
  const module = { exports: {} as unknown };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** Bytecode in the heap: what V8 compiled or took from a cache and has not flushed. */
function bytecodeBytes(): number {
  return getHeapCodeStatistics().bytecode_and_metadata_size;
}

/**
 * Bytecode a run must compile beyond what the cache gave it before the cache is written again.
 * The heap's bytecode also grows with Node's own modules a command loads (about 280 KB for
 * `status`), so a run that compiled nothing of the file still shows some growth.
 */
export const MIN_CACHE_GROWTH_BYTES = 256 * 1024;

/** No cache larger than this is written (the whole CLI compiled is about 3 MB). */
export const MAX_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Whether a run that took the cache compiled enough to write it again: more bytecode than the
 * cache held (`held`: what V8 built from it), and at least MIN_CACHE_GROWTH_BYTES. A run that
 * compiled nothing new (its command was cached) stays below both; `status` after a cache
 * written by `--help` compiles 5x what the cache held.
 */
export function shouldGrowCache({ held, compiled }: { held: number; compiled: number }): boolean {
  return compiled > Math.max(held, MIN_CACHE_GROWTH_BYTES);
}

/** At exit of a run that took `cachedData`: writes the cache again when the run compiled much more. */
function growCache(path: string, script: Script, cachedData: Buffer, bytecode: { held: number; compiled: number }): void {
  if (!shouldGrowCache(bytecode)) return;
  // Serializing costs 15-35 ms for the CLI, so only here. V8 may have flushed the bytecode of
  // functions unused for long (a watch that ran for hours): a smaller cache is not written.
  const data = script.createCachedData();
  if (data.length > cachedData.length) saveCache(path, data);
}

/** `cli-<key>.v8`: one name per file, size, mtime and Node build (old ones are removed on save). */
function cacheName(file: string, source: string): string {
  const key = `${file}\0${source.length}\0${statSync(file).mtimeMs}\0${process.version}\0${process.arch}`;
  return `${basename(file).replace(/\.[^.]*$/, "")}-${hash("sha256", key, "hex").slice(0, 16)}.v8`;
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Caches of other builds of the same file kept beside the current one. */
const KEEP_OTHER_CACHES = 3;

/** Writes the cache atomically (a reader sees the old file or the new one) and drops stale ones. */
function saveCache(path: string, data: Buffer): void {
  const dir = dirname(path);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (data.length > MAX_CACHE_BYTES) return;
    writeFileSync(temp, data, { mode: 0o600 });
    renameSync(temp, path);
    // Caches of other builds (an upgrade, a second install): the newest few stay, so two installs
    // in use do not evict each other.
    const prefix = basename(path).replace(/-[0-9a-f]+\.v8$/, "-");
    const others = readdirSync(dir)
      .filter((name) => name.startsWith(prefix) && name.endsWith(".v8") && name !== basename(path))
      .map((name) => ({ name, mtimeMs: statSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const { name } of others.slice(KEEP_OTHER_CACHES)) unlinkSync(join(dir, name));
  } catch {
    // Only an accelerator: the next run compiles again.
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}
