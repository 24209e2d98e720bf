/**
 * The PostCSS plugins a design's stylesheets go through, handed to Vite inline: the design's
 * own PostCSS config when it has one, else Tailwind and Autoprefixer, as the service's exports
 * do. Hand-written because the configs' bare requires (`tailwindcss`, `tailwindcss-animate`)
 * must resolve from the preview's package folders, never from the synced folder, and Tailwind
 * v3 takes its `content` globs relative to the process's working folder, not the design's.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { packageNameOf } from "./package-folder.js";
import type { PostcssPlugin, Toolchain } from "./toolchain.js";

/** The config files Tailwind v3 looks for, in its order. */
export const TAILWIND_CONFIG_NAMES = ["tailwind.config.js", "tailwind.config.cjs", "tailwind.config.mjs", "tailwind.config.ts"] as const;
/** The PostCSS config files the preview reads, in postcss-load-config's order. */
export const POSTCSS_CONFIG_NAMES = [
  ".postcssrc",
  ".postcssrc.json",
  "postcss.config.js",
  "postcss.config.cjs",
  "postcss.config.mjs",
  "postcss.config.ts",
] as const;

/** What `designCss` needs. */
export interface DesignCssOptions {
  root: string;
  tools: Toolchain;
  /** The folder whose node_modules holds the design's packages. */
  packagesDir: string;
  /** The Tailwind major the design's package.json names. */
  tailwindMajor: number | undefined;
  /** Gets a package a config requires that is not there (no package.json: the runtime's version); undefined: it is not installed. */
  fetch: ((name: string) => Promise<void>) | undefined;
}

/** The plugins, and the one-line problems met while choosing them. */
export interface DesignCss {
  plugins: PostcssPlugin[];
  problems: string[];
  /** Removes the generated Tailwind config. */
  dispose(): void;
}

/** The design's PostCSS plugins. */
export async function designCss(o: DesignCssOptions): Promise<DesignCss> {
  const problems: string[] = [];
  const generated = mkdtempSync(join(tmpdir(), "mpsync-tailwind-"));
  const dispose = (): void => rmSync(generated, { recursive: true, force: true });
  const v4 = tailwindV4Sign(o.root, o.tailwindMajor);
  const load = (path: string): Promise<unknown> => withFetch(o, () => o.tools.loadModule(path, aliases(o)));
  try {
    const tailwind = async (): Promise<PostcssPlugin | undefined> => {
      if (v4 !== undefined) return tailwindV4(o, v4, problems);
      const name = TAILWIND_CONFIG_NAMES.find((n) => existsSync(join(o.root, n)));
      const config = name === undefined ? {} : ((await load(join(o.root, name))) as Record<string, unknown>);
      return o.tools.tailwind({ config: writeConfig(generated, { ...config, content: absoluteContent(o.root, config.content) }) });
    };
    const own = POSTCSS_CONFIG_NAMES.find((n) => existsSync(join(o.root, n)));
    if (own === undefined) return { plugins: [await tailwind(), o.tools.autoprefixer()].filter((p) => p !== undefined), problems, dispose };
    const file = join(o.root, own);
    const raw = own.startsWith(".postcssrc") ? (JSON.parse(readFileSync(file, "utf8")) as unknown) : await load(file);
    const config = (typeof raw === "function" ? (raw as (ctx: object) => unknown)({ env: "development", cwd: o.root }) : raw) as { plugins?: unknown };
    const plugins: PostcssPlugin[] = [];
    for (const [name, options] of pluginEntries(config?.plugins)) {
      if (options === false) continue;
      if (name === "tailwindcss" || (typeof options === "object" && (options as { postcssPlugin?: unknown }).postcssPlugin === "tailwindcss")) {
        const t = await tailwind();
        if (t !== undefined) plugins.push(t);
      } else if (name === "autoprefixer") plugins.push(o.tools.autoprefixer(typeof options === "object" ? (options as object) : {}));
      else if (name === undefined) plugins.push(options as PostcssPlugin);
      else {
        const factory = (await withFetch(o, () => createRequire(join(o.packagesDir, "package.json"))(name))) as (opts?: unknown) => PostcssPlugin;
        plugins.push(factory(options === true ? undefined : options));
      }
    }
    return { plugins, problems, dispose };
  } catch (err) {
    dispose();
    throw err;
  }
}

/** Plugins as a PostCSS config lists them: `{ name: options }` or an array of plugins. */
function pluginEntries(plugins: unknown): [string | undefined, unknown][] {
  if (Array.isArray(plugins)) return plugins.map((p) => (typeof p === "string" ? [p, {}] : [undefined, p]));
  if (typeof plugins === "object" && plugins !== null) return Object.entries(plugins);
  return [];
}

/** Every package of the design's folder, and Tailwind from the toolchain, by name. */
function aliases(o: DesignCssOptions): Record<string, string> {
  const out: Record<string, string> = {};
  const modules = join(o.packagesDir, "node_modules");
  for (const entry of existsSync(modules) ? readdirSync(modules) : []) {
    if (entry.startsWith(".")) continue;
    if (!entry.startsWith("@")) out[entry] = join(modules, entry);
    else for (const sub of readdirSync(join(modules, entry))) out[`${entry}/${sub}`] = join(modules, entry, sub);
  }
  if (out["tailwindcss"] === undefined || o.tailwindMajor === undefined || o.tailwindMajor < 4) out["tailwindcss"] = o.tools.tailwindDir;
  return out;
}

/** Runs `work`; a package it lacks is fetched (when the design may have it fetched) and `work` runs again. */
async function withFetch<T>(o: DesignCssOptions, work: () => T): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return work();
    } catch (err) {
      const missing = /Cannot find module '([^']+)'/.exec((err as Error).message)?.[1];
      const name = missing === undefined || missing.startsWith(".") || isAbsolute(missing) ? undefined : packageNameOf(missing);
      if (name === undefined || tries > 2) throw err;
      if (o.fetch === undefined)
        throw new Error(`a config of the design requires "${name}", which its package.json does not name: add it there`, { cause: err });
      await o.fetch(name);
    }
  }
}

/** Where the design shows it is written for Tailwind v4, or undefined. */
export function tailwindV4Sign(root: string, major: number | undefined): string | undefined {
  if (major !== undefined && major >= 4) return "package.json names tailwindcss 4";
  for (const dir of [root, join(root, "src"), join(root, "app")]) {
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".css")) : [];
    for (const f of files) {
      const css = readFileSync(join(dir, f), "utf8");
      if (/@import\s+["']tailwindcss["']/.test(css) || /^\s*@theme\b/m.test(css)) return `${f} uses @import "tailwindcss"`;
    }
  }
  return undefined;
}

function tailwindV4(o: DesignCssOptions, sign: string, problems: string[]): PostcssPlugin | undefined {
  const req = createRequire(join(o.packagesDir, "package.json"));
  try {
    return (req("@tailwindcss/postcss") as (opts?: object) => PostcssPlugin)({ base: o.root });
  } catch {
    problems.push(
      `this design is written for Tailwind CSS v4 (${sign}) and the service renders v3: add "@tailwindcss/postcss" to its package.json to preview it with v4, or write it for v3 (a tailwind.config.js and the three @tailwind lines)`,
    );
    return undefined;
  }
}

/**
 * Tailwind given a config object resolves and hashes the whole theme at every run; given a
 * path, it caches by the file's mtime. So the loaded config is handed over through a
 * generated file outside the folder (never in it: it would be synced) that reads it from a
 * process-wide slot named after the file.
 */
function writeConfig(dir: string, config: Record<string, unknown>): string {
  const file = join(dir, "tailwind.config.cjs");
  (globalThis as Record<symbol, unknown>)[Symbol.for(`mpsync.tailwind:${file}`)] = config;
  writeFileSync(
    file,
    `// Generated by mpsync dev: the design's Tailwind config, content globs from its folder.\nmodule.exports = globalThis[Symbol.for(${JSON.stringify(`mpsync.tailwind:${file}`)})];\n`,
  );
  return file;
}

/**
 * Tailwind's `content` with every glob made absolute against `root` (strings, `{ files }`,
 * `{ raw }` entries kept); no content at all means every script and page of the design.
 */
export function absoluteContent(root: string, content: unknown): unknown {
  const fix = (entry: unknown): unknown => {
    if (typeof entry !== "string") return entry;
    const negated = entry.startsWith("!");
    const glob = negated ? entry.slice(1) : entry;
    const abs = isAbsolute(glob) ? glob : join(root, glob);
    return negated ? `!${abs}` : abs;
  };
  if (Array.isArray(content)) return content.map(fix);
  if (typeof content === "object" && content !== null && Array.isArray((content as { files?: unknown }).files)) {
    const c = content as { files: unknown[] };
    return { ...c, relative: false, files: c.files.map(fix) };
  }
  return [join(root, "**/*.{html,js,jsx,ts,tsx}"), `!${join(root, "node_modules")}`];
}
