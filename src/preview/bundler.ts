/**
 * The design bundled for the browser by esbuild, kept in memory: one script (`app.js`, with its
 * source map), one stylesheet (`app.css`, every imported stylesheet through Tailwind, in import
 * order) and the assets they reference. An incremental esbuild context makes a rebuild after a
 * save take milliseconds. Bare imports go through `bare-imports.ts` (React from the toolchain,
 * the rest from the design's own node_modules or the per-user cache).
 */
import { readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import type * as Esbuild from "esbuild";
import type { Toolchain } from "./toolchain.js";
import type { TailwindCss } from "./tailwind-css.js";
import { bareImportsPlugin, type BareImportOptions } from "./bare-imports.js";

/** One compile error, located in the design. */
export interface BuildProblem {
  message: string;
  /** Relative to the design's folder, with `/`. */
  file?: string | undefined;
  line?: number | undefined;
  column?: number | undefined;
  lineText?: string | undefined;
}

/** What one build produced. */
export interface BuildOutput {
  ok: boolean;
  js: string;
  map: string;
  css: string;
  /** Assets by URL path (`/__mpsync/out/logo-AB12.svg`). */
  assets: Map<string, Uint8Array>;
  problems: BuildProblem[];
  /**
   * A file it read changed while it ran: an editor's save (truncate, then write) can be read
   * half done, and its last change event may have come before the build began. Build again.
   */
  stale?: boolean;
}

/** Where bundle outputs are served. */
export const OUT_URL = "/__mpsync/out";
const ASSET_LOADERS = ["svg", "png", "jpg", "jpeg", "gif", "webp", "avif", "ico", "woff", "woff2", "ttf", "otf", "mp4", "webm", "mp3", "wav"] as const;

/** Options of {@link Bundler}. */
export interface BundlerOptions extends Omit<BareImportOptions, "root" | "tools"> {
  root: string;
  /** The script the page starts from (absolute). */
  entry: string;
  tools: Toolchain;
  css: TailwindCss;
}

/** An incremental build of one design. */
export class Bundler {
  readonly #o: BundlerOptions;
  /** Where esbuild places outputs (never written: they stay in memory); source maps are relative to it. */
  static readonly outdir = join(tmpdir(), "mpsync-preview-out");
  readonly #outdir = Bundler.outdir;
  #ctx: Esbuild.BuildContext<{ write: false; metafile: true }> | undefined;
  /** The design's files the last good build read. */
  #inputs: string[] = [];
  /** What those files were (mtime and size) when the last build ended. */
  #seen = new Map<string, string>();

  constructor(options: BundlerOptions) {
    this.#o = options;
  }

  /** Builds (the first call creates the context; later ones rebuild incrementally). */
  async build(): Promise<BuildOutput> {
    this.#ctx ??= await this.#context();
    const before = await fileMarks(this.#inputs);
    const started = Date.now();
    let out: BuildOutput;
    try {
      const result = await this.#ctx.rebuild();
      this.#inputs = Object.keys(result.metafile.inputs)
        .filter((p) => !p.includes("node_modules") && !/^[\w-]+:/.test(p))
        .map((p) => resolve(this.#o.root, p));
      out = this.#collect(result.outputFiles, [...result.errors]);
    } catch (err) {
      const failure = err as Partial<Esbuild.BuildFailure>;
      out = this.#collect([], Array.isArray(failure.errors) ? failure.errors : [{ text: err instanceof Error ? err.message : String(err) } as Esbuild.Message]);
    }
    this.#seen = await fileMarks(this.#inputs);
    out.stale = [...this.#seen].some(([file, mark]) => (before.has(file) ? before.get(file) !== mark : writtenSince(mark, started)));
    return out;
  }

  /**
   * True when a file the last build read is no longer what it was when that build ended.
   * chokidar reports one change of a file per 50 ms, so the write that follows an editor's
   * truncation may go unreported when the build ran in between (DevPreview looks again).
   */
  async changedSinceBuild(): Promise<boolean> {
    const now = await fileMarks([...this.#seen.keys()]);
    return [...now].some(([file, mark]) => this.#seen.get(file) !== mark);
  }

  /** Releases esbuild's context. */
  async dispose(): Promise<void> {
    await this.#ctx?.dispose();
    this.#ctx = undefined;
  }

  #context(): Promise<Esbuild.BuildContext<{ write: false; metafile: true }>> {
    const { root, entry, tools, css } = this.#o;
    const cssPlugin: Esbuild.Plugin = {
      name: "mpsync-tailwind",
      setup(build) {
        // esbuild re-runs plugin callbacks on every rebuild, so a class added in a component
        // reaches the stylesheet in the same rebuild.
        build.onLoad({ filter: /\.css$/ }, async (args) => {
          const text = await readFile(args.path, "utf8");
          try {
            return { contents: await css.process(args.path, text), loader: "css", resolveDir: join(args.path, "..") };
          } catch (err) {
            // PostCSS's CssSyntaxError and Tailwind's `@apply` errors carry the place.
            const e = err as { reason?: string; message?: string; line?: number; column?: number };
            const location = e.line === undefined ? null : { file: args.path, line: e.line, column: Math.max(0, (e.column ?? 1) - 1) };
            return { errors: [{ text: e.reason ?? e.message ?? String(err), location }] };
          }
        });
      },
    };
    return tools.esbuild.context({
      entryPoints: { app: entry },
      absWorkingDir: root,
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2020",
      write: false,
      metafile: true,
      outdir: this.#outdir,
      publicPath: OUT_URL,
      assetNames: "[name]-[hash]",
      sourcemap: "external",
      sourcesContent: false,
      jsx: "automatic",
      logLevel: "silent",
      loader: { ".js": "jsx", ...Object.fromEntries(ASSET_LOADERS.map((e) => [`.${e}`, "file" as const])) },
      define: {
        "process.env.NODE_ENV": '"development"',
        "import.meta.env": JSON.stringify({ DEV: true, PROD: false, MODE: "development", BASE_URL: "/", SSR: false }),
      },
      plugins: [cssPlugin, bareImportsPlugin({ ...this.#o, root, tools })],
    });
  }

  #collect(files: readonly Esbuild.OutputFile[], errors: readonly Esbuild.Message[]): BuildOutput {
    const out: BuildOutput = { ok: errors.length === 0, js: "", map: "", css: "", assets: new Map(), problems: errors.map((m) => this.#problem(m)) };
    for (const f of files) {
      const rel = relative(this.#outdir, f.path);
      if (rel === "app.js") out.js = f.text;
      else if (rel === "app.js.map") out.map = f.text;
      else if (rel === "app.css") out.css = f.text;
      else if (!rel.endsWith(".map")) out.assets.set(`${OUT_URL}/${rel}`, f.contents);
    }
    return out;
  }

  #problem(m: Esbuild.Message): BuildProblem {
    const loc = m.location;
    const file = loc?.file === undefined || loc.file === "" ? undefined : relative(this.#o.root, join(this.#o.root, loc.file)).split("\\").join("/");
    return { message: m.text, file, line: loc?.line, column: loc === null || loc === undefined ? undefined : loc.column + 1, lineText: loc?.lineText };
  }
}

/**
 * How far a file's time may lag the wall clock: Linux stamps a write with the clock of the last
 * timer tick (up to a few ms before Date.now()), so a write that began after a build started can
 * carry an earlier time.
 */
const MTIME_LAG_MS = 20;

/** Each file's `mtime:size` ("gone" when it cannot be read). */
async function fileMarks(files: readonly string[]): Promise<Map<string, string>> {
  const marks = await Promise.all(
    files.map((f) =>
      stat(f).then(
        (s) => `${s.mtimeMs}:${s.size}`,
        () => "gone",
      ),
    ),
  );
  return new Map(files.map((f, i) => [f, marks[i]!]));
}

/** A file the build read for the first time (no mark from before it began) written since `started`. */
function writtenSince(mark: string, started: number): boolean {
  const time = mark === "gone" ? 0 : Number(mark.split(":")[0]);
  // A time in the future (a skewed clock, an archive) says nothing about this build.
  return time >= started - MTIME_LAG_MS && time <= Date.now();
}
