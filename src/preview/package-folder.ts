/**
 * Folders of npm packages in the per-user preview cache, one per manifest: the toolchain's,
 * and a design's dependencies keyed by what its package.json names (two designs naming the
 * same share one). Never in the synced folder. A lock file per folder keeps two `mpsync dev`
 * processes from running npm in it at once; a marker says the manifest's install completed.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, open, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { codeCacheDir } from "../core/code-cache.js";
import { isErrno } from "../core/errors.js";
import { processExists } from "../core/process-exists.js";
import type { PackageInstaller } from "./package-installer.js";

/** The cache folder: `MPSYNC_PREVIEW_CACHE`, else `preview/` in mpsync's cache folder. */
export function previewCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const given = env.MPSYNC_PREVIEW_CACHE;
  if (given !== undefined && given !== "") return given;
  const base = codeCacheDir({ ...env, MPSYNC_CODE_CACHE: undefined, MPSYNC_CODE_CACHE_DIR: undefined });
  return base === undefined ? undefined : join(base, "preview");
}

/** How long a process waits for another's install before giving up. @default 600000 */
export const INSTALL_LOCK_TIMEOUT_MS = 600_000;
const LOCK_POLL_MS = 200;
const DONE_MARKER = ".mpsync-installed";

/** The package a bare import names: `lodash/fp` -> `lodash`, `@scope/pkg/x` -> `@scope/pkg`. */
export function packageNameOf(specifier: string): string | undefined {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  if (name === undefined || name === "" || !/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name)) return undefined;
  return name;
}

/** A short stable name of a manifest's dependencies (sorted, so their order does not matter). */
export function manifestKey(dependencies: Readonly<Record<string, string>>): string {
  const sorted = Object.keys(dependencies)
    .sort()
    .map((k) => [k, dependencies[k]]);
  return createHash("sha256").update(JSON.stringify(sorted)).digest("hex").slice(0, 16);
}

/** Options of {@link PackageFolder}. */
export interface PackageFolderOptions {
  dir: string;
  /** What its package.json names. */
  dependencies: Readonly<Record<string, string>>;
  installer: PackageInstaller;
  lockTimeoutMs?: number;
}

/** One folder of packages installed from a manifest (more may be added to it later). */
export class PackageFolder {
  readonly dir: string;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly #installer: PackageInstaller;
  readonly #lockTimeoutMs: number;
  /** Installs under way in this process, by what they install (one npm run serves every asker). */
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(options: PackageFolderOptions) {
    this.dir = options.dir;
    this.dependencies = options.dependencies;
    this.#installer = options.installer;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? INSTALL_LOCK_TIMEOUT_MS;
  }

  /** True once the manifest's install completed (here or in another process). */
  get installed(): boolean {
    return existsSync(join(this.dir, DONE_MARKER));
  }

  /** True when `name` is in the folder. */
  has(name: string): boolean {
    return existsSync(join(this.dir, "node_modules", name, "package.json"));
  }

  /** Installs what the manifest names, unless done before. */
  ensureInstalled(): Promise<void> {
    if (this.installed) return Promise.resolve();
    return this.#once("", async () => {
      await mkdir(this.dir, { recursive: true });
      await this.#withLock(async () => {
        if (this.installed) return;
        await writeFile(
          join(this.dir, "package.json"),
          `${JSON.stringify({ name: "mpsync-preview-packages", private: true, dependencies: this.dependencies }, null, 2)}\n`,
        );
        await this.#installer.install(this.dir, []);
        await writeFile(join(this.dir, DONE_MARKER), `${new Date().toISOString()}\n`);
      });
    });
  }

  /** Adds `name` (installed as `spec`) unless present. */
  add(name: string, spec: string = name): Promise<void> {
    if (this.has(name)) return Promise.resolve();
    return this.#once(name, async () => {
      await this.ensureInstalled();
      await this.#withLock(async () => {
        // Another process may have installed it while this one waited for the lock.
        if (!this.has(name)) await this.#installer.install(this.dir, [spec]);
      });
      if (!this.has(name)) throw new Error(`npm installed ${spec} but ${name} is not in ${this.dir}`);
    });
  }

  #once(key: string, work: () => Promise<void>): Promise<void> {
    let pending = this.#inFlight.get(key);
    if (pending === undefined) {
      pending = work().finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  async #withLock<T>(work: () => Promise<T>): Promise<T> {
    const lock = join(this.dir, "install.lock");
    const deadline = Date.now() + this.#lockTimeoutMs;
    for (;;) {
      try {
        const handle = await open(lock, "wx");
        await handle.writeFile(`${process.pid}\n`);
        await handle.close();
        break;
      } catch (err) {
        if (!isErrno(err, "EEXIST")) throw err;
        if (await lockIsStale(lock)) {
          await unlink(lock).catch(() => undefined);
          continue;
        }
        if (Date.now() > deadline) throw new Error(`another mpsync is installing into ${this.dir} (${lock}); try again when it is done`);
        // Another process's npm run: nothing to await but its end, seen as the lock's removal.
        await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
      }
    }
    try {
      return await work();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }
}

/** A lock whose holder is gone (killed mid-install) is stale; an unreadable one is not yet written. */
async function lockIsStale(lock: string): Promise<boolean> {
  const text = await readFile(lock, "utf8").catch(() => undefined);
  const pid = Number(text?.trim());
  if (text === undefined || text.trim() === "" || !Number.isInteger(pid)) return false;
  return !processExists(pid);
}
