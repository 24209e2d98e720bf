/**
 * The per-user cache of packages that designs import (`lucide-react`, `framer-motion`, ...): one
 * folder with a package.json and a package-lock.json, shared by every design, so a package is
 * downloaded once, its version stays fixed, and the preview works offline afterwards. A lock
 * file keeps two `mpsync dev` processes from running npm in it at once.
 */
import { existsSync } from "node:fs";
import { mkdir, open, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { codeCacheDir } from "../core/code-cache.js";
import type { PackageInstaller } from "./package-installer.js";
import { isErrno } from "../core/errors.js";
import { processExists } from "../core/process-exists.js";

/** The cache folder: `MPSYNC_PREVIEW_CACHE`, else `preview/` in mpsync's cache folder. */
export function previewCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const given = env.MPSYNC_PREVIEW_CACHE;
  if (given !== undefined && given !== "") return given;
  const base = codeCacheDir({ ...env, MPSYNC_CODE_CACHE: undefined, MPSYNC_CODE_CACHE_DIR: undefined });
  return base === undefined ? undefined : join(base, "preview");
}

/** How long a process waits for another's install before giving up. @default 300000 */
export const INSTALL_LOCK_TIMEOUT_MS = 300_000;
const LOCK_POLL_MS = 200;

/** Options of {@link DependencyCache}. */
export interface DependencyCacheOptions {
  dir: string;
  installer: PackageInstaller;
  lockTimeoutMs?: number;
}

/** The package a bare import names: `lodash/fp` -> `lodash`, `@scope/pkg/x` -> `@scope/pkg`. */
export function packageNameOf(specifier: string): string | undefined {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  if (name === undefined || name === "" || !/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name)) return undefined;
  return name;
}

/** The shared cache of design dependencies. */
export class DependencyCache {
  readonly dir: string;
  readonly #installer: PackageInstaller;
  readonly #lockTimeoutMs: number;
  /** Installs under way in this process, by package name (one npm run serves every asker). */
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(options: DependencyCacheOptions) {
    this.dir = options.dir;
    this.#installer = options.installer;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? INSTALL_LOCK_TIMEOUT_MS;
  }

  /** True when `name` is installed in the cache. */
  has(name: string): boolean {
    return existsSync(join(this.dir, "node_modules", name, "package.json"));
  }

  /** Installs `name` (a package name, or a spec such as a tarball path for `name`) unless present. */
  async ensure(name: string, spec: string = name): Promise<void> {
    if (this.has(name)) return;
    let pending = this.#inFlight.get(name);
    if (pending === undefined) {
      pending = this.#install(name, spec).finally(() => this.#inFlight.delete(name));
      this.#inFlight.set(name, pending);
    }
    return pending;
  }

  async #install(name: string, spec: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const manifest = join(this.dir, "package.json");
    if (!existsSync(manifest)) {
      await writeFile(
        manifest,
        `${JSON.stringify({ name: "mpsync-preview-cache", private: true, description: "packages mpsync dev installed for designs", dependencies: {} }, null, 2)}\n`,
      );
    }
    await this.#withLock(async () => {
      // Another process may have installed it while this one waited for the lock.
      if (!this.has(name)) await this.#installer.install(this.dir, [spec]);
    });
    if (!this.has(name)) throw new Error(`npm installed ${spec} but ${name} is not in ${this.dir}`);
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
