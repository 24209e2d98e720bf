/**
 * `mpsync dev`'s preview of one design folder: watches the folder, rebuilds on a save, tells
 * open pages to swap the stylesheet (a CSS-only change) or reload (a script change), shows
 * compile and runtime errors in the page and as one terminal line each, and shows the
 * daemon's sync state. While the daemon writes a pulled version into the folder, rebuilds are
 * held; the page reloads once the whole version is on disk (`writing` / `settled`).
 */
import { createHash } from "node:crypto";
import { join, relative, resolve, sep } from "node:path";
import { watch, type FSWatcher } from "chokidar";
import { Bundler, OUT_URL, type BuildOutput, type BuildProblem } from "./bundler.js";
import { clientScript } from "./client-script.js";
import type { DependencyCache } from "./dependency-cache.js";
import { planPage, withImportMap, type PagePlan } from "./page.js";
import { buildVendorBundle, type VendorBundle } from "./vendor-bundle.js";
import { contentType, PreviewServer } from "./preview-server.js";
import { bundlePlace, originalPlace } from "./source-map.js";
import { nextSyncState, syncStateLabel, type SyncStateInput, type SyncState } from "../sync/sync-state.js";
import { TailwindCss } from "./tailwind-css.js";
import type { Toolchain } from "./toolchain.js";

/** Options of {@link DevPreview}. */
export interface DevPreviewOptions {
  root: string;
  tools: Toolchain;
  cache: DependencyCache | undefined;
  /** One terminal line (an error with file:line, an install). */
  say: (line: string, level: "info" | "warn" | "error") => void;
  /** Quiet time after a change before a rebuild, in ms. @default 10 */
  settleMs?: number;
}

/**
 * chokidar reports one change of a file per 50 ms and drops the rest: an editor's save
 * (truncate, then write) can be reported once, for the truncation. This long after a change,
 * the preview looks at its files again.
 */
const CHANGE_REPORT_GAP_MS = 60;

/** Folders whose changes never affect the page. */
const IGNORED = /(^|[/\\])(\.mpsync|\.git|node_modules)([/\\]|$)/;

/** The live preview of one folder. */
export class DevPreview {
  readonly #o: DevPreviewOptions;
  readonly #css: TailwindCss;
  readonly #server: PreviewServer;
  #page: PagePlan;
  /** The entry the bundler was made for (a new one needs a new bundler). */
  #entry: string | undefined;
  #vendor: VendorBundle | undefined;
  #bundler: Bundler | undefined;
  #watcher: FSWatcher | undefined;
  /** The last good build (what pages are served while a later one has errors). */
  #good: BuildOutput | undefined;
  #hashes = { js: "", css: "" };
  /**
   * Versions of the script and the stylesheet, in every page (a meta tag) and in the channel's
   * hello: a page that was loading when a change was announced learns of it when it connects.
   */
  #versions = { js: 0, css: 0 };
  #problems: { title: string; problems: BuildProblem[] } = { title: "", problems: [] };
  #lastSaid = "";
  #sync: { state: SyncState; label: string; message: string } = { state: "starting", label: syncStateLabel("starting"), message: "" };
  #writing = false;
  #dirty = false;
  #building: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The look again after a change (CHANGE_REPORT_GAP_MS). */
  #lookAgainTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #reloadAfterBuild = false;
  /** Builds finished (tests and the bench wait on this). */
  builds = 0;
  /** Changes the watcher reported (tests). */
  changesSeen = 0;

  constructor(options: DevPreviewOptions) {
    this.#o = options;
    this.#css = new TailwindCss(options.root, options.tools);
    this.#page = planPage(options.root);
    this.#server = new PreviewServer(options.root, {
      html: () => withImportMap(this.#page.html, this.#vendor?.importMap ?? { imports: {} }, this.#versions),
      clientJs: clientScript,
      output: (path) => this.#output(path),
      greeting: () => [
        { type: "hello", ...this.#versions },
        { type: "sync", ...this.#sync },
        { type: "problems", ...this.#problems },
      ],
      onRuntimeError: (r) => this.#runtimeError(r),
    });
  }

  /** Builds once and starts watching the folder. */
  async start(): Promise<void> {
    const [vendor] = await Promise.all([buildVendorBundle(this.#o.tools, Bundler.outdir), this.#rebuild()]);
    this.#vendor = vendor;
    const watcher = watch(this.#o.root, { ignored: (p) => IGNORED.test(relative(this.#o.root, p)), ignoreInitial: true });
    this.#watcher = watcher;
    await new Promise<void>((r) => watcher.once("ready", () => r()));
    watcher.on("all", (_event, path) => this.#changed(relative(this.#o.root, path).split(sep).join("/")));
  }

  /** Serves on 127.0.0.1:`port` (0: any free port); resolves to the port. */
  listen(port: number): Promise<number> {
    return this.#server.listen(port);
  }

  /** The engine began writing into the folder: hold rebuilds until `settled`. */
  writing(): void {
    this.#writing = true;
  }

  /** The engine's cycle is over: build what changed meanwhile, then reload if it differs. */
  settled(): void {
    this.#badge({ kind: "cycle-end" });
    if (!this.#writing) return;
    this.#writing = false;
    this.#reloadAfterBuild = true;
    this.#schedule(0);
  }

  /** A daemon event (the badge). */
  syncEvent(e: { event: string; code?: string | undefined; message: string }): void {
    this.#badge({ kind: "event", event: e.event, code: e.code, message: e.message });
  }

  /** Stops watching and serving. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#lookAgainTimer !== undefined) clearTimeout(this.#lookAgainTimer);
    await this.#watcher?.close();
    await this.#building;
    await this.#bundler?.dispose();
    this.#css.dispose();
    await this.#server.close();
  }

  /** Pages connected to the reload channel (tests). */
  get pages(): number {
    return this.#server.clientCount;
  }

  #badge(input: SyncStateInput): void {
    const state = nextSyncState(this.#sync.state, input);
    const message = input.kind === "event" ? input.message : this.#sync.message;
    if (state === this.#sync.state && message === this.#sync.message) return;
    this.#sync = { state, label: syncStateLabel(state), message };
    this.#server.broadcast({ type: "sync", ...this.#sync });
  }

  #changed(rel: string): void {
    this.changesSeen++;
    if (this.#css.isConfig(rel)) this.#css.forgetConfig();
    if (rel === "index.html" || !rel.includes("/")) this.#replan();
    if (!this.#writing) this.#badge({ kind: "saved" });
    this.#schedule(this.#o.settleMs ?? 10);
    if (this.#lookAgainTimer !== undefined) clearTimeout(this.#lookAgainTimer);
    this.#lookAgainTimer = setTimeout(() => void this.#lookAgain(), CHANGE_REPORT_GAP_MS);
  }

  /** Builds again when a file the last build read changed after it with no change reported. */
  async #lookAgain(): Promise<void> {
    this.#lookAgainTimer = undefined;
    await this.#building;
    if (this.#bundler !== undefined && (await this.#bundler.changedSinceBuild())) this.#schedule(0);
  }

  /** A new or removed index.html or entry file changes the page and the entry. */
  #replan(): void {
    const next = planPage(this.#o.root);
    this.#page = next;
    if (next.entry !== this.#entry) {
      void this.#bundler?.dispose();
      this.#bundler = undefined;
      this.#entry = next.entry;
    }
  }

  #schedule(ms: number): void {
    this.#dirty = true;
    if (this.#writing || this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#rebuild();
    }, ms);
  }

  async #rebuild(): Promise<void> {
    if (this.#building !== undefined) return; // the running build's end looks at #dirty again
    this.#dirty = false;
    this.#building = this.#buildOnce().finally(() => {
      this.#building = undefined;
      if (this.#dirty && !this.#writing && !this.#closed) void this.#rebuild();
    });
    return this.#building;
  }

  async #buildOnce(): Promise<void> {
    const entry = this.#page.entry;
    if (entry === undefined) {
      this.#showProblems("No entry", [{ message: "no index.tsx (or index.html naming a module script) in this folder" }]);
      return;
    }
    this.#entry = entry;
    this.#bundler ??= new Bundler({
      root: this.#o.root,
      entry,
      tools: this.#o.tools,
      css: this.#css,
      cache: this.#o.cache,
      onInstall: (name, outcome) => {
        if (outcome === "start") this.#o.say(`preview: installing ${name} into the preview cache`, "info");
        else if (outcome === "done") this.#o.say(`preview: installed ${name}`, "info");
      },
    });
    const out = await this.#bundler.build();
    this.builds++;
    // A pull began while this build read the folder (it may hold half of the new version), or a
    // file changed while it was read: build again, show nothing of this one.
    if (this.#writing || out.stale === true) {
      this.#dirty = true;
      return;
    }
    if (!out.ok) {
      this.#showProblems("Build failed", out.problems);
      return;
    }
    const hashes = { js: digest(out.js), css: digest(out.css) };
    const jsChanged = hashes.js !== this.#hashes.js;
    const cssChanged = hashes.css !== this.#hashes.css;
    const hadProblems = this.#problems.problems.length > 0;
    this.#good = out;
    this.#hashes = hashes;
    this.#showProblems("", []);
    if (jsChanged || (hadProblems && this.#problems.title === "Runtime error") || this.#reloadAfterBuild) {
      this.#versions = { js: this.#versions.js + 1, css: this.#versions.css + (cssChanged ? 1 : 0) };
      this.#server.broadcast({ type: "reload", ...this.#versions });
    } else if (cssChanged) {
      this.#versions = { ...this.#versions, css: this.#versions.css + 1 };
      this.#server.broadcast({ type: "css", ...this.#versions });
    }
    this.#reloadAfterBuild = false;
  }

  #showProblems(title: string, problems: BuildProblem[]): void {
    this.#problems = { title, problems };
    this.#server.broadcast({ type: "problems", title, problems });
    const first = problems[0];
    const line = first === undefined ? "" : `preview: ${where(first)}${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`;
    if (line !== "" && line !== this.#lastSaid) this.#o.say(line, "error");
    if (line === "" && this.#lastSaid !== "") this.#o.say("preview: fixed, page updated", "info");
    this.#lastSaid = line;
  }

  #runtimeError(r: { kind?: string; message?: string; stack?: string }): void {
    const place = bundlePlace(r.stack ?? "");
    const src = place === undefined || this.#good === undefined ? undefined : originalPlace(this.#good.map, place.line, place.column);
    const file = src === undefined ? undefined : relative(this.#o.root, resolve(join(OUT_DIR_FOR_MAPS, src.source)));
    const problem: BuildProblem = { message: r.message ?? "unknown error", file, line: src?.line, column: src?.column };
    this.#problems = { title: "Runtime error", problems: [problem] };
    this.#o.say(`preview: runtime error: ${where(problem)}${problem.message}`, "error");
    this.#lastSaid = "";
  }

  #output(path: string): { body: string | Uint8Array; type: string; immutable?: boolean } | undefined {
    const vendor = this.#vendor?.files.get(path);
    if (vendor !== undefined) return { body: vendor, type: contentType(path), immutable: true };
    const out = this.#good;
    if (path === `${OUT_URL}/app.js`) return { body: out === undefined ? "" : `${out.js}\n//# sourceMappingURL=app.js.map\n`, type: contentType(path) };
    if (path === `${OUT_URL}/app.css`) return { body: out?.css ?? "", type: contentType(path) };
    if (path === `${OUT_URL}/app.js.map`) return { body: out?.map ?? "{}", type: contentType(path) };
    const asset = out?.assets.get(path);
    return asset === undefined ? undefined : { body: asset, type: contentType(path) };
  }
}

/** The folder esbuild's source map paths are relative to (Bundler's outdir). */
const OUT_DIR_FOR_MAPS = Bundler.outdir;

function where(p: BuildProblem): string {
  if (p.file === undefined) return "";
  return `${p.file}${p.line === undefined ? "" : `:${p.line}${p.column === undefined ? "" : `:${p.column}`}`}: `;
}

function digest(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
