/**
 * A design's stylesheets through Tailwind v3 and PostCSS, as the service's runtime does: the
 * scaffold's `@import 'tailwindcss/base'` lines (Tailwind v3 reads them as `@tailwind`
 * directives) and the design's own tailwind.config.js, whose `content` globs are taken relative
 * to the design's folder (Tailwind would take them relative to the process's working folder).
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Toolchain } from "./toolchain.js";

/** The config files Tailwind v3 looks for, in its order. */
export const TAILWIND_CONFIG_NAMES = ["tailwind.config.js", "tailwind.config.cjs", "tailwind.config.mjs", "tailwind.config.ts"] as const;

/** Turns stylesheets into CSS for the browser. */
export class TailwindCss {
  readonly #root: string;
  readonly #tools: Toolchain;
  #config: Record<string, unknown> | undefined;

  constructor(root: string, tools: Toolchain) {
    this.#root = root;
    this.#tools = tools;
  }

  /** Forgets the loaded tailwind.config (it changed). */
  forgetConfig(): void {
    this.#config = undefined;
  }

  /** True when `rel` is a Tailwind config of the design. */
  isConfig(rel: string): boolean {
    return (TAILWIND_CONFIG_NAMES as readonly string[]).includes(rel);
  }

  /** The processed text of the stylesheet `file` (an absolute path) whose text is `css`. */
  async process(file: string, css: string): Promise<string> {
    const config = (this.#config ??= this.#loadConfig());
    const result = await this.#tools.postcss([this.#tools.tailwind(config)]).process(css, { from: file });
    return result.css;
  }

  #loadConfig(): Record<string, unknown> {
    const name = TAILWIND_CONFIG_NAMES.find((n) => existsSync(join(this.#root, n)));
    const config = name === undefined ? {} : this.#tools.loadTailwindConfig(join(this.#root, name));
    return { ...config, content: absoluteContent(this.#root, config.content) };
  }
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
