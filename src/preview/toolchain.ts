/**
 * The preview's toolchain: Vite with its React plugin (Fast Refresh), Tailwind v3, PostCSS and
 * Autoprefixer, as the service's exports build a design. None of it is a dependency of mpsync
 * (the sync CLI stays lean): it is taken from beside mpsync when installed there (a clone of
 * this repository has it as dev dependencies), else installed once into the user's cache on
 * the first `mpsync dev`, at the pinned versions below.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Vite from "vite";
import { manifestKey, PackageFolder } from "./package-folder.js";
import type { PackageInstaller } from "./package-installer.js";

/**
 * What the toolchain installs when mpsync has none beside it (the versions its tests run).
 * Vite 8 rather than the exports' ^5: it runs on every Node mpsync runs on (^20.19 || >=22.12),
 * its React plugin needs no Babel, and it is the Vite this repository's test runner already
 * carries, so the tests render with exactly what a user's cache holds.
 */
export const TOOLCHAIN_SPECS: Readonly<Record<string, string>> = {
  vite: "8.3.8",
  "@vitejs/plugin-react": "6.3.0",
  tailwindcss: "3.4.19",
  postcss: "8.5.33",
  autoprefixer: "10.4.21",
};

/** A PostCSS plugin (opaque here). */
export type PostcssPlugin = object;

/** Source map lookups (source-map-js, which PostCSS carries). */
export interface SourceMapConsumerLike {
  originalPositionFor(position: { line: number; column: number }): { source: string | null; line: number | null; column: number | null };
}

/** The loaded toolchain. */
export interface Toolchain {
  vite: typeof Vite;
  /** `@vitejs/plugin-react`'s factory. */
  react(options?: object): Vite.PluginOption;
  /** Tailwind v3's PostCSS plugin for a config (a path or an object). */
  tailwind(config: Record<string, unknown> | { config: string }): PostcssPlugin;
  autoprefixer(options?: object): PostcssPlugin;
  /** Evaluates a config module (ESM or CommonJS) afresh, its bare requires resolved through `alias`. */
  loadModule(path: string, alias: Record<string, string>): unknown;
  sourceMap(map: object): SourceMapConsumerLike;
  /** Tailwind's package folder (its base.css, colors, plugin helpers). */
  tailwindDir: string;
  /** Where it was found. */
  from: string;
}

/** Options of {@link loadToolchain}. */
export interface LoadToolchainOptions {
  /** The per-user preview cache (the toolchain goes to `toolchain/` in it when needed). */
  cacheDir: string | undefined;
  installer: PackageInstaller;
  /** Told before a first-run install starts (it takes a while). */
  onInstall?: (specs: readonly string[], dir: string) => void;
  /** Where to look first. @default beside mpsync (its own node_modules) */
  besideMpsync?: string;
}

/** Finds the toolchain beside mpsync, else in the cache, installing it there the first time. */
export async function loadToolchain(options: LoadToolchainOptions): Promise<Toolchain> {
  const found = await tryLoad(options.besideMpsync ?? fileFromImportMeta());
  if (found !== undefined) return found;
  if (options.cacheDir === undefined)
    throw new Error("the preview's toolchain is not installed and there is no cache folder (set HOME or MPSYNC_PREVIEW_CACHE)");
  const folder = new PackageFolder({
    dir: join(options.cacheDir, "toolchain", manifestKey(TOOLCHAIN_SPECS)),
    dependencies: TOOLCHAIN_SPECS,
    installer: options.installer,
  });
  if (!folder.installed)
    options.onInstall?.(
      Object.entries(TOOLCHAIN_SPECS).map(([n, v]) => `${n}@${v}`),
      folder.dir,
    );
  await folder.ensureInstalled();
  const installed = await tryLoad(join(folder.dir, "package.json"));
  if (installed === undefined) throw new Error(`the preview's toolchain was installed into ${folder.dir} but cannot be loaded`);
  return installed;
}

function fileFromImportMeta(): string {
  // tsc's dist/preview/toolchain.js, the bundled dist/cli.cjs, or src/ under vitest: resolution
  // walks up to the node_modules beside mpsync in each case.
  return new URL(import.meta.url).pathname;
}

/**
 * Vite and its React plugin are ES modules only: imported by file URL, which no bundler
 * follows. The CLI bundle runs from V8's code cache (core/code-cache.ts), where Node 20 may
 * give `import()` no loader; there they are required (Node 20.19 and later require ES modules).
 */
async function importEsm(file: string): Promise<unknown> {
  try {
    return await import(pathToFileURL(file).href);
  } catch (err) {
    if ((err as { code?: string }).code !== "ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING") throw err;
    return createRequire(file)(file) as unknown;
  }
}

async function tryLoad(from: string): Promise<Toolchain | undefined> {
  const req = createRequire(from);
  try {
    // By the package's main entry: not every package exports its package.json.
    for (const name of Object.keys(TOOLCHAIN_SPECS)) req.resolve(name);
  } catch {
    return undefined;
  }
  const vite = (await importEsm(req.resolve("vite"))) as typeof Vite;
  const react = ((await importEsm(req.resolve("@vitejs/plugin-react"))) as { default: Toolchain["react"] }).default;
  const tailwindDir = dirname(req.resolve("tailwindcss/package.json"));
  const jiti = createRequire(join(tailwindDir, "package.json"))("jiti") as (file: string, options: Record<string, unknown>) => (id: string) => unknown;
  const { SourceMapConsumer } = createRequire(req.resolve("postcss"))("source-map-js") as { SourceMapConsumer: new (map: object) => SourceMapConsumerLike };
  return {
    vite,
    react,
    tailwind: req("tailwindcss") as Toolchain["tailwind"],
    autoprefixer: req("autoprefixer") as Toolchain["autoprefixer"],
    loadModule(path, alias) {
      // jiti without its caches: an edited config is read again, as is every file it imports.
      const load = jiti(path, { interopDefault: true, cache: false, requireCache: false, esmResolve: true, alias });
      const mod = load(path) as { default?: unknown } | undefined;
      return mod?.default ?? mod;
    },
    sourceMap: (map) => new SourceMapConsumer(map),
    tailwindDir,
    from: dirname(req.resolve("vite/package.json")),
  };
}
