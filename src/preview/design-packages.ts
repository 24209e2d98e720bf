/**
 * Where a design's imports come from, as the service decides it: the versions its package.json
 * names (the service runs a real npm install of it), else the runtime's
 * (`runtime-versions.ts`). A design with its own node_modules is used as is.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { manifestKey, PackageFolder } from "./package-folder.js";
import type { PackageInstaller } from "./package-installer.js";
import { RUNTIME_BASE, RUNTIME_VERSIONS } from "./runtime-versions.js";

/** What a design's package.json asks of the preview. */
export interface DesignManifest {
  /** What is installed for it (its dependencies, Tailwind plugins among its devDependencies, React). */
  dependencies: Record<string, string>;
  /** True when the design has a package.json: a package it does not name is not installed. */
  fromDesign: boolean;
  /** The Tailwind major it names, when it names one. */
  tailwindMajor: number | undefined;
  /** Why its package.json was not used (not JSON, not an object). */
  problem: string | undefined;
}

/** devDependencies that change what the page looks like: Tailwind's plugins (build tools are the preview's own). */
const RENDERING_DEV = /^(tailwindcss-|@tailwindcss\/)/;

/** Reads the design's package.json (none: the runtime's base). */
export function readDesignManifest(root: string): DesignManifest {
  const base = Object.fromEntries(RUNTIME_BASE.map((n) => [n, RUNTIME_VERSIONS[n] ?? "latest"]));
  const file = join(root, "package.json");
  if (!existsSync(file)) return { dependencies: base, fromDesign: false, tailwindMajor: undefined, problem: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    return { dependencies: base, fromDesign: false, tailwindMajor: undefined, problem: `package.json is not valid JSON (${(err as Error).message})` };
  }
  if (typeof parsed !== "object" || parsed === null)
    return { dependencies: base, fromDesign: false, tailwindMajor: undefined, problem: "package.json is not an object" };
  const deps = stringMap((parsed as { dependencies?: unknown }).dependencies);
  const dev = stringMap((parsed as { devDependencies?: unknown }).devDependencies);
  const rendering = Object.fromEntries(Object.entries(dev).filter(([name]) => RENDERING_DEV.test(name)));
  const tailwind = deps["tailwindcss"] ?? dev["tailwindcss"];
  const major = tailwind === undefined ? undefined : Number(/\d+/.exec(tailwind)?.[0]);
  return {
    dependencies: { ...base, ...rendering, ...deps },
    fromDesign: true,
    tailwindMajor: major !== undefined && Number.isInteger(major) ? major : undefined,
    problem: undefined,
  };
}

function stringMap(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Where a design's bare imports resolve from. */
export interface DesignPackages {
  /** The folder whose node_modules holds them: the design itself, or a cache folder. */
  dir: string;
  /** The cache folder (undefined when the design has its own node_modules). */
  folder: PackageFolder | undefined;
  manifest: DesignManifest;
}

/** The packages of the design in `root`, from the cache under `cacheDir` unless it has its own. */
export function designPackages(root: string, cacheDir: string, installer: PackageInstaller): DesignPackages {
  const manifest = readDesignManifest(root);
  if (existsSync(join(root, "node_modules"))) return { dir: root, folder: undefined, manifest };
  const dir = join(cacheDir, "packages", manifestKey(manifest.dependencies));
  return { dir, folder: new PackageFolder({ dir, dependencies: manifest.dependencies, installer }), manifest };
}
