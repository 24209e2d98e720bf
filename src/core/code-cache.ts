/**
 * Runs a CommonJS file through V8's code cache: the first run compiles it and, at exit, saves
 * V8's compiled code (every function the run compiled); later runs hand that back to V8 instead
 * of compiling again. Node 20 has no compile cache of its own; Node's from 22.1
 * (`module.enableCompileCache`, runWithNodeCompileCache) keeps only what a file compiles as it
 * loads, not the functions that run later (see nodeCompileCache). The CLI is one such file
 * (`dist/cli.cjs`): compiling is a large part of a short command's time (BENCHMARKS.md,
 * "Figures behind the code's choices").
 *
 * The cache is only an accelerator: V8 checks each file against the source, its own version and
 * its flags and refuses one that does not fit (then the file is compiled, and the cache written
 * again); a cache that cannot be read or written is simply not used.
 *
 * A cache holds what the runs that wrote it compiled: `--help` compiles a fifth of what `status`
 * does. So the cache names the entries (the CLI's commands) it was written by, and a run of an
 * entry it does not name writes it again at exit, with everything it holds now (the old
 * functions and the new ones): whichever command ran first, the second command finds its own
 * code after one run. The entry is named by the caller rather than read from V8's heap code
 * statistics, which would walk the heap at every call.
 */
import { isAscii } from "node:buffer";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import nodeModule, { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
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

/** How a run uses the file: which part of it runs (the CLI: its command), and what it reports. */
export interface CodeCacheRun {
  /** The entry this run uses (`status`, `help`): a cache that does not name it is written again at exit. */
  entry?: string;
  /** Exit codes of runs that did not run their entry (the CLI's usage errors): such a run names no entry. */
  skipExitCodes?: readonly number[];
  onCache?: (use: CodeCacheUse) => void;
}

/**
 * Runs `file` as a CommonJS module and returns its exports. With `cacheDir`, its compiled code
 * is taken from the cache there, or written there when this process exits.
 */
export function runCachedCommonJs(file: string, cacheDir: string | undefined, options: CodeCacheRun = {}): unknown {
  const bytes = readFileSync(file);
  // ASCII (as the CLI bundle is) is read as a one-byte string: no UTF-8 decoding, half the memory.
  const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const path = cacheDir === undefined ? undefined : join(cacheDir, cacheName(file, source));
  const cached = path === undefined ? undefined : readCache(path);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData: cached?.data,
    // The bundle may import() what it leaves outside (esbuild, for the emulator's publish check).
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const taken = cached !== undefined && script.cachedDataRejected !== true ? cached : undefined;
  options.onCache?.({ path, used: taken !== undefined });
  if (path !== undefined && !(taken !== undefined && coversEntry(taken.entries, options.entry))) {
    // At exit, the cache holds every function this run compiled, not only the top level.
    const { entry, skipExitCodes = [] } = options;
    process.once("exit", (code) => {
      const ran = entry !== undefined && !skipExitCodes.includes(code);
      if (taken === undefined) saveCache(path, script.createCachedData(), ran ? [entry] : []);
      else if (ran) saveCache(path, grownData(script, taken.data), [...taken.entries, entry]);
    });
  }
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
  const module = { exports: {} as unknown };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** `module.enableCompileCache` (Node >= 22.1): Node's own compile cache, for every module loaded after the call. */
type EnableCompileCache = (directory?: string) => { status: number; message?: string; directory?: string };

/**
 * Node's compile cache (22.1 and later) when `MPSYNC_CODE_CACHE=node` asks for it for the CLI
 * (the start-up bench compares the two); undefined otherwise, and on Node 20, which has none.
 * mpsync's own is the default on every Node: Node's keeps the code compiled while a file loads,
 * which in the CLI's bundle is little more than its outer shell (every module of the bundle is
 * a function compiled when it first runs), while mpsync's keeps every function a command ran.
 */
export function nodeCompileCache(env: NodeJS.ProcessEnv): EnableCompileCache | undefined {
  if (env.MPSYNC_CODE_CACHE !== "node") return undefined;
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  return typeof enable === "function" ? enable : undefined;
}

/**
 * Runs `file` as a CommonJS module through Node's compile cache, kept in `cacheDir`'s `node`
 * folder (no cache without `cacheDir`), and returns its exports. Node checks each entry against
 * the source and its own build, and writes what the run compiled when the process exits.
 */
export function runWithNodeCompileCache(file: string, cacheDir: string | undefined, enable: EnableCompileCache): unknown {
  if (cacheDir !== undefined) enable(join(cacheDir, "node"));
  return createRequire(file)(file);
}

/**
 * The entry of a command line, for the cache: `help` for any help (`--help`, `-h`, `help pull`,
 * no command), `version` for `--version`, else the command's name: the first word that is
 * neither an option nor the value of one of `valueOptions` (`mpsync -c x.json status` is `status`).
 */
export function commandEntry(args: readonly string[], valueOptions: readonly string[]): string {
  if (args.some((a) => a === "--help" || a === "-h")) return "help";
  if (args.some((a) => a === "--version" || a === "-V")) return "version";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (valueOptions.includes(arg)) i++;
    else if (!arg.startsWith("-")) return arg.replace(/\s/g, "_");
  }
  return "help";
}

/** Entries a cache names at most: past that, every entry counts as covered (no file grows without end). */
export const MAX_CACHE_ENTRIES = 64;

/** Whether a cache written by `entries` needs no writing again after a run of `entry` (none: any run). */
export function coversEntry(entries: readonly string[], entry: string | undefined): boolean {
  return entry === undefined || entries.includes(entry) || entries.length >= MAX_CACHE_ENTRIES;
}

/** No cache larger than this is written (far above the whole CLI compiled). */
export const MAX_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The code to save at exit: all this run holds, or the cache it took when that was larger (V8
 * may have flushed the bytecode of functions unused for long: a watch that ran for hours).
 * Serializing the CLI's code takes milliseconds at exit, so it runs only for an entry the cache did not name.
 */
function grownData(script: Script, taken: Buffer): Buffer {
  const data = script.createCachedData();
  return taken.length > data.length ? taken : data;
}

/**
 * A cache file: this line naming the entries that wrote it (`mpsync-code-cache 1 status help`),
 * then V8's data. A file without it (an older build's) is not handed to V8.
 */
const CACHE_MAGIC = "mpsync-code-cache 1";

/** The cache at `path` and the entries it names; undefined when missing or not a cache file. */
export function readCache(path: string): { data: Buffer; entries: string[] } | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return undefined;
  }
  const end = file.indexOf(10);
  const head = end === -1 ? "" : file.toString("latin1", 0, end);
  if (head !== CACHE_MAGIC && !head.startsWith(`${CACHE_MAGIC} `)) return undefined;
  const entries = head.slice(CACHE_MAGIC.length + 1).split(" ");
  return { data: file.subarray(end + 1), entries: entries.filter(Boolean) };
}

/** `cli-<key>.v8`: one name per file, size, mtime and Node build (old ones are removed on save). */
function cacheName(file: string, source: string): string {
  const key = `${file}\0${source.length}\0${statSync(file).mtimeMs}\0${process.version}\0${process.arch}`;
  return `${basename(file).replace(/\.[^.]*$/, "")}-${fnv1a(key, 0x811c9dc5)}${fnv1a(key, 0x050c5d1f)}.v8`;
}

/**
 * FNV-1a (32 bits, as 8 hex digits) of `text` from `basis`: two bases make the name's 16 digits.
 * Not node:crypto: a name needs no strength, and loading crypto would slow every `--help`.
 */
function fnv1a(text: string, basis: number): string {
  let h = basis;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Caches of other builds of the same file kept beside the current one. */
const KEEP_OTHER_CACHES = 3;

/** Writes the cache atomically (a reader sees the old file or the new one) and drops stale ones. */
function saveCache(path: string, data: Buffer, entries: readonly string[]): void {
  const dir = dirname(path);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (data.length > MAX_CACHE_BYTES) return;
    writeFileSync(temp, Buffer.concat([Buffer.from(`${[CACHE_MAGIC, ...entries].join(" ")}\n`, "latin1"), data]), { mode: 0o600 });
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
