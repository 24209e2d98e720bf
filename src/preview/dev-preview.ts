/**
 * `mpsync dev`'s preview of one design folder. It prepares beside sync (the toolchain, the
 * design's packages, with progress and a bound; the page says what it waits for, or why it is
 * unavailable), then runs the design's Vite. Changes come from the daemon's change source
 * (`localChange`), so the preview sees what sync sees; while the daemon writes a pulled
 * version they are held, and the page reloads once, after the version's last file
 * (`writing` / `settled`). It shows the daemon's sync state in the page's badge.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { ViteDevServer } from "vite";
import { hasConflictMarkers } from "../core/markers.js";
import { designCss, POSTCSS_CONFIG_NAMES, TAILWIND_CONFIG_NAMES, type DesignCss } from "./design-css.js";
import { designPackages, type DesignPackages } from "./design-packages.js";
import type { PackageInstaller } from "./package-installer.js";
import type { RuntimeErrorReport, SyncMessage } from "./page-client.js";
import type { PreviewFront } from "./preview-front.js";
import { firstLine, OnceSaid, placeText, previewLogger, runtimePlace } from "./preview-errors.js";
import { runtimeSpec } from "./runtime-versions.js";
import { nextSyncState, syncStateLabel, type SyncStateInput } from "../sync/sync-state.js";
import type { Toolchain } from "./toolchain.js";
import { createViteServer } from "./vite-server.js";

/** Options of {@link DevPreview}. */
export interface DevPreviewOptions {
  root: string;
  front: PreviewFront;
  /** The per-user preview cache (packages, Vite's pre-bundled dependencies). */
  cacheDir: string;
  installer: PackageInstaller;
  /** Loads the toolchain (installing it on a first run). */
  tools: () => Promise<Toolchain>;
  /** One terminal line. */
  say: (line: string, level: "info" | "warn" | "error") => void;
  /** How often a fetch still running is said in the terminal. @default 15000 */
  progressEveryMs?: number;
  /** Quiet time of a file before Vite hears of it, in ms. @default 15 */
  settleMs?: number;
}

/** How long a file found empty after a change is given for its write to land (a page loaded on an empty module breaks). */
const EMPTY_FILE_WAIT_MS = 150;

/** Files whose change means another Vite configuration: the preview starts again. */
const CONFIG_FILES = new Set<string>(["package.json", ...TAILWIND_CONFIG_NAMES, ...POSTCSS_CONFIG_NAMES]);

/**
 * How the page shows the files a cycle wrote (a pulled version): a new Vite configuration
 * (package.json, a Tailwind or PostCSS config) starts the preview again; any other file, one
 * full reload once the last file is written, so the page never runs half a version; nothing
 * written, nothing to do.
 */
export function afterPulledVersion(written: readonly string[]): "restart" | "reload" | "nothing" {
  if (written.some((rel) => CONFIG_FILES.has(rel))) return "restart";
  return written.length === 0 ? "nothing" : "reload";
}

/** The live preview of one folder. */
export class DevPreview {
  readonly #o: DevPreviewOptions;
  readonly #said: OnceSaid;
  #vite: { server: ViteDevServer; css: DesignCss; tools: Toolchain } | undefined;
  #sync: SyncMessage = { state: "starting", label: syncStateLabel("starting"), message: "" };
  #writing = false;
  /** Files changed while the daemon wrote (shown at once when it is done). */
  readonly #held = new Set<string>();
  /** Files the daemon wrote conflict markers into, until they are saved without. */
  readonly #conflicted = new Set<string>();
  /**
   * An editor's save is a truncation, then a write: both are reported. Vite told of the
   * truncation may read the empty file, and a page reloaded then breaks on a missing export, so
   * each file is passed on once it has been quiet for `settleMs`.
   */
  readonly #settling = new Map<string, NodeJS.Timeout>();
  #preparing: Promise<void> | undefined;
  #closed = false;

  constructor(options: DevPreviewOptions) {
    this.#o = options;
    this.#said = new OnceSaid((line, level) => options.say(line, level));
  }

  /** Prepares and starts Vite; resolves when the page serves the design or says why it cannot (never rejects). */
  start(): Promise<void> {
    this.#preparing ??= this.#prepare().finally(() => (this.#preparing = undefined));
    return this.#preparing;
  }

  /** True once Vite serves the design. */
  get ready(): boolean {
    return this.#vite !== undefined;
  }

  /** A file of the folder changed (a relative `/` path from the daemon's change source). */
  localChange(rel: string): void {
    this.#said.forget();
    if (this.#conflicted.has(rel) && !fileHasMarkers(join(this.#o.root, rel))) this.#conflicted.delete(rel);
    if (!this.#writing) this.#badge(this.#sync.state === "conflict" && this.#conflicted.size === 0 ? { kind: "resolved" } : { kind: "saved" });
    if (this.#writing) return void this.#held.add(rel);
    if (CONFIG_FILES.has(rel)) return void this.#restart();
    this.#settle(rel, this.#o.settleMs ?? 15, true);
  }

  /** Tells Vite of `rel` after `ms` of quiet; a file still empty then is a truncation whose write is late: once, it waits longer. */
  #settle(rel: string, ms: number, again: boolean): void {
    clearTimeout(this.#settling.get(rel));
    const timer = setTimeout(() => {
      this.#settling.delete(rel);
      if (again && isEmptyFile(join(this.#o.root, rel))) return this.#settle(rel, EMPTY_FILE_WAIT_MS, false);
      this.#tellVite(rel);
    }, ms);
    this.#settling.set(rel, timer);
  }

  #tellVite(rel: string): void {
    const server = this.#vite?.server;
    if (server === undefined || this.#writing) return void (this.#writing && this.#held.add(rel));
    const abs = join(this.#o.root, rel);
    const known = server.environments.client.moduleGraph.getModulesByFile(abs) !== undefined;
    server.watcher.emit(existsSync(abs) ? (known ? "change" : "add") : "unlink", abs);
  }

  /** The engine began writing into the folder: hold changes until `settled`. */
  writing(): void {
    this.#writing = true;
  }

  /** The engine's cycle is over: what it wrote is shown as {@link afterPulledVersion} says. */
  settled(): void {
    this.#badge({ kind: "cycle-end" });
    if (!this.#writing) return;
    this.#writing = false;
    const held = [...this.#held];
    this.#held.clear();
    const server = this.#vite?.server;
    const next = afterPulledVersion(held);
    if (next === "restart") return void this.#restart();
    if (server === undefined || next === "nothing") return;
    server.moduleGraph.invalidateAll();
    server.environments.client.hot.send({ type: "full-reload", path: "*" });
  }

  /** A daemon event (the badge; conflict markers to watch for). */
  syncEvent(e: { event: string; code?: string | undefined; message: string; files?: readonly string[] | undefined; unresolved?: boolean | undefined }): void {
    if (e.event === "conflict" && e.unresolved === true) for (const f of e.files ?? []) this.#conflicted.add(f);
    this.#badge({ kind: "event", event: e.event, code: e.code, unresolved: e.unresolved, message: e.message });
  }

  /** Stops Vite (the front is the caller's). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#settling.values()) clearTimeout(timer);
    this.#settling.clear();
    await this.#preparing;
    await this.#stopVite();
  }

  #badge(input: SyncStateInput): void {
    const state = nextSyncState(this.#sync.state as Parameters<typeof nextSyncState>[0], input);
    const message = input.kind === "event" ? input.message : this.#sync.message;
    if (state === this.#sync.state && message === this.#sync.message) return;
    this.#sync = { state, label: syncStateLabel(state), message };
    this.#vite?.server.environments.client.hot.send("mpsync:sync", this.#sync);
  }

  async #restart(): Promise<void> {
    await this.#preparing;
    if (this.#closed) return;
    await this.#stopVite();
    await this.start();
  }

  async #stopVite(): Promise<void> {
    const running = this.#vite;
    this.#vite = undefined;
    this.#o.front.detach();
    if (running === undefined) return;
    running.css.dispose();
    await running.server.close();
  }

  async #prepare(): Promise<void> {
    const began = Date.now();
    let doing = "loading the preview's toolchain";
    let lastSaid = began;
    const tick = setInterval(() => {
      const secs = Math.round((Date.now() - began) / 1000);
      this.#o.front.status({ phase: "preparing", message: `${doing} (${secs} s)` });
      if (Date.now() - lastSaid < (this.#o.progressEveryMs ?? 15_000)) return;
      lastSaid = Date.now();
      this.#o.say(`preview: still ${doing} (${secs} s)`, "info");
    }, 1000);
    try {
      this.#o.front.status({ phase: "preparing", message: doing });
      const tools = await this.#o.tools();
      const packages = designPackages(this.#o.root, this.#o.cacheDir, this.#o.installer);
      if (packages.manifest.problem !== undefined) this.#o.say(`preview: ${packages.manifest.problem}: using the runtime's versions`, "warn");
      if (packages.folder !== undefined && !packages.folder.installed) {
        const n = Object.keys(packages.manifest.dependencies).length;
        doing = `installing the design's packages (${n} named by ${packages.manifest.fromDesign ? "its package.json" : "the service's runtime"})`;
        this.#o.front.status({ phase: "preparing", message: doing });
        this.#o.say(`preview: ${doing} into ${packages.folder.dir}`, "info");
        await packages.folder.ensureInstalled();
      }
      if (this.#closed) return;
      await this.#startVite(tools, packages);
      if (Date.now() - began > 2000) this.#o.say(`preview: ready (${Math.round((Date.now() - began) / 1000)} s)`, "info");
    } catch (err) {
      const line = `preview unavailable: ${firstLine(err instanceof Error ? err.message : String(err))}`;
      this.#o.front.status({
        phase: "unavailable",
        message: `${line}. Sync goes on; fix the cause and restart mpsync dev (or save package.json) to try again.`,
      });
      this.#o.say(`${line} (sync goes on)`, "error");
    } finally {
      clearInterval(tick);
    }
  }

  async #startVite(tools: Toolchain, packages: DesignPackages): Promise<void> {
    const folder = packages.folder;
    // No package.json: a package the design imports is fetched at the runtime's version; with one, only what it names is there.
    const fetch = folder === undefined || packages.manifest.fromDesign ? undefined : (name: string) => this.#fetch(folder.add.bind(folder), name);
    const css = await designCss({ root: this.#o.root, tools, packagesDir: packages.dir, tailwindMajor: packages.manifest.tailwindMajor, fetch });
    for (const p of css.problems) this.#said.line(`preview: ${p}`, "warn");
    const server = await createViteServer({
      root: this.#o.root,
      tools,
      packagesDir: packages.dir,
      css,
      front: this.#o.front,
      cacheDir: join(this.#o.cacheDir, "vite", createHash("sha256").update(this.#o.root).digest("hex").slice(0, 16)),
      logger: previewLogger(this.#o.root, this.#said),
      fetch,
    });
    server.environments.client.hot.on("mpsync:runtime-error", (report: RuntimeErrorReport) => void this.#runtimeError(report));
    server.environments.client.hot.on("vite:client:connect", () => server.environments.client.hot.send("mpsync:sync", this.#sync));
    this.#vite = { server, css, tools };
    this.#o.front.attach(server.middlewares);
  }

  async #fetch(add: (name: string, spec: string) => Promise<void>, name: string): Promise<void> {
    this.#o.say(`preview: installing ${runtimeSpec(name)} into the preview cache`, "info");
    await add(name, runtimeSpec(name));
    this.#o.say(`preview: installed ${name}`, "info");
  }

  async #runtimeError(report: RuntimeErrorReport): Promise<void> {
    const vite = this.#vite;
    if (vite === undefined) return;
    const place = await runtimePlace(vite.server, vite.tools, this.#o.root, report).catch(() => undefined);
    this.#said.line(`preview: runtime error: ${placeText(this.#o.root, place)}${report.message}`, "error");
    vite.server.environments.client.hot.send({
      type: "error",
      err: { message: report.message, stack: "", plugin: "runtime error", ...(place === undefined ? {} : { id: place.file, loc: place }) },
    });
  }
}

function isEmptyFile(abs: string): boolean {
  try {
    return statSync(abs).size === 0;
  } catch {
    return false;
  }
}

function fileHasMarkers(abs: string): boolean {
  try {
    return hasConflictMarkers(readFileSync(abs, "utf8"));
  } catch {
    return false;
  }
}
