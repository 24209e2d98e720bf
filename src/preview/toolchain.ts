/**
 * The preview's toolchain: esbuild (TSX to a browser bundle), Tailwind v3 with PostCSS (the
 * scaffold's index.css), and React 18 (one copy for every design). None of it is a dependency
 * of mpsync (the sync CLI stays lean): it is taken from beside mpsync when installed there (a
 * clone of this repository has it as dev dependencies), else installed once into the user's
 * cache on the first `mpsync dev`, at the pinned versions below.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as Esbuild from "esbuild";
import type { PackageInstaller } from "./package-installer.js";

/** What the toolchain installs when mpsync has none beside it (the versions its tests run). */
export const TOOLCHAIN_SPECS = ["esbuild@0.28.2", "tailwindcss@3.4.19", "postcss@8.5.33", "react@18.3.1", "react-dom@18.3.1"] as const;

/** A PostCSS plugin (opaque here). */
export type PostcssPlugin = object;
/** A node of a parsed stylesheet (the part the preview uses). */
export interface CssNode {
  type: string;
  toString(): string;
  replaceWith(node: CssNode): void;
}

/** The part of PostCSS the preview uses. */
export interface Postcss {
  (plugins: PostcssPlugin[]): { process(css: string, options: { from: string }): Promise<{ css: string; messages: { type: string; file?: string }[] }> };
  parse(css: string, options: { from: string }): { nodes: CssNode[]; toString(): string };
  comment(options: { text: string }): CssNode;
}

/** The loaded toolchain. */
export interface Toolchain {
  esbuild: typeof Esbuild;
  postcss: Postcss;
  /** Tailwind v3's PostCSS plugin for a config object. */
  tailwind(config: Record<string, unknown> | { config: string }): PostcssPlugin;
  /** Evaluates a tailwind.config.js (ESM or CommonJS) afresh, never from a module cache. */
  loadTailwindConfig(path: string): Record<string, unknown>;
  /** A folder from which `react` and `react-dom` resolve (the one React of every preview). */
  reactDir: string;
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
  const beside = options.besideMpsync ?? fileFromImportMeta();
  const found = tryLoad(beside);
  if (found !== undefined) return found;
  if (options.cacheDir === undefined)
    throw new Error("the preview's toolchain is not installed and there is no cache folder (set HOME or MPSYNC_PREVIEW_CACHE)");
  const dir = join(options.cacheDir, "toolchain");
  const cached = tryLoad(join(dir, "package.json"));
  if (cached !== undefined) return cached;
  await mkdir(dir, { recursive: true });
  if (!existsSync(join(dir, "package.json")))
    await writeFile(join(dir, "package.json"), `${JSON.stringify({ name: "mpsync-preview-toolchain", private: true }, null, 2)}\n`);
  options.onInstall?.(TOOLCHAIN_SPECS, dir);
  await options.installer.install(dir, TOOLCHAIN_SPECS);
  const installed = tryLoad(join(dir, "package.json"));
  if (installed === undefined) throw new Error(`the preview's toolchain was installed into ${dir} but cannot be loaded`);
  return installed;
}

function fileFromImportMeta(): string {
  // tsc's dist/preview/toolchain.js, the bundled dist/cli.cjs, or src/ under vitest: resolution
  // walks up to the node_modules beside mpsync in each case.
  return new URL(import.meta.url).pathname;
}

function tryLoad(from: string): Toolchain | undefined {
  const req = createRequire(from);
  try {
    for (const name of ["esbuild", "tailwindcss", "postcss", "react", "react-dom"]) req.resolve(`${name}/package.json`);
  } catch {
    return undefined;
  }
  const tailwindReq = createRequire(req.resolve("tailwindcss/package.json"));
  const jiti = tailwindReq("jiti") as (file: string, options: Record<string, unknown>) => (id: string) => unknown;
  const tailwind = req("tailwindcss") as Toolchain["tailwind"];
  return {
    esbuild: req("esbuild") as typeof Esbuild,
    postcss: req("postcss") as Postcss,
    tailwind,
    loadTailwindConfig(path) {
      // jiti without its caches: an edited config is read again, as is every file it imports.
      const load = jiti(path, { interopDefault: true, cache: false, requireCache: false, esmResolve: true });
      const mod = load(path) as { default?: unknown } | Record<string, unknown>;
      const config = (mod as { default?: unknown }).default ?? mod;
      return typeof config === "object" && config !== null ? (config as Record<string, unknown>) : {};
    },
    reactDir: dirname(dirname(dirname(req.resolve("react/package.json")))),
    from: dirname(req.resolve("tailwindcss/package.json")),
  };
}
