/**
 * The preview's Vite plugin: the page a scaffold lacks (in memory), the page client beside
 * Vite's, and bare imports resolved from the design's package folder in the user's cache (a
 * synced folder has no node_modules; Vite would look only above it). Vite does the rest.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Plugin, ResolvedConfig } from "vite";
import { packageNameOf } from "./package-folder.js";
import { CLIENT_URL, namesIcon, providedEntry, providedPage } from "./page.js";
import { pageClientModule } from "./page-client.js";

/** Options of {@link mpsyncPlugin}. */
export interface MpsyncPluginOptions {
  root: string;
  /** The folder whose node_modules holds the design's packages (the design itself when it has its own). */
  packagesDir: string;
  /** Gets a package the design imports and its folder lacks; undefined: none is installed (its package.json decides). */
  fetch: ((name: string) => Promise<void>) | undefined;
}

const CLIENT_ID = "\0mpsync-client";
/** A package name first: not relative, absolute, virtual (`\0`, `/@`) or a scheme (`node:`, `virtual:`). */
const BARE = /^(?![./\0])[\w@][^:]*$/;

/** The plugin. */
export function mpsyncPlugin(o: MpsyncPluginOptions): Plugin {
  const fromPackages = join(o.packagesDir, "package.json");
  let config: ResolvedConfig | undefined;
  return {
    name: "mpsync",
    enforce: "pre",
    configResolved(resolved) {
      config = resolved;
    },
    configureServer(server) {
      // Before Vite's own middlewares: a design without index.html gets the provided page.
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? "/").split("?")[0] ?? "/";
        const page = path === "/" || path === "/index.html" || (!path.includes(".") && (req.headers.accept ?? "").includes("text/html"));
        if (!page || req.method !== "GET" || existsSync(join(o.root, "index.html"))) return next();
        void server.transformIndexHtml(req.url ?? "/", providedPage(providedEntry(o.root))).then(
          (html) => {
            res.setHeader("content-type", "text/html; charset=utf-8");
            res.setHeader("cache-control", "no-store");
            res.end(html);
          },
          (err: unknown) => next(err),
        );
      });
    },
    transformIndexHtml(html) {
      const tags = [{ tag: "script", attrs: { type: "module", src: CLIENT_URL }, injectTo: "head" as const }];
      if (!namesIcon(html)) tags.push({ tag: "link", attrs: { rel: "icon", href: "data:," } as never, injectTo: "head" as const });
      return tags;
    },
    async resolveId(id, importer, options) {
      if (id === CLIENT_URL) return CLIENT_ID;
      // Entries are the design's files; a package's own imports find its folder's node_modules.
      if (importer === undefined || options.isEntry || !BARE.test(id) || id.startsWith("@/") || importer.includes("/node_modules/")) return null;
      const opts = { ...(options as object), skipSelf: true } as Parameters<typeof this.resolve>[2];
      const found = (await this.resolve(id, fromPackages, opts)) ?? (await this.resolve(id, importer, opts));
      if (found !== null || o.fetch === undefined) return found ?? missing(this, id, config);
      const name = packageNameOf(id);
      if (name === undefined) return null;
      try {
        await o.fetch(name);
      } catch (err) {
        this.error(`package "${name}" is not available: ${(err as Error).message}`);
      }
      return this.resolve(id, fromPackages, opts);
    },
    load(id) {
      return id === CLIENT_ID ? pageClientModule() : null;
    },
  };
}

/** A design with its own package.json names its packages: one it does not name is an error saying so. */
function missing(ctx: { error(message: string): never }, id: string, config: ResolvedConfig | undefined): null {
  const name = packageNameOf(id);
  // Vite's own bare ids (its client, preload polyfill) resolve elsewhere; only a package is named.
  if (name === undefined || name === "vite" || config === undefined) return null;
  ctx.error(`package "${name}" is not available: the design's package.json does not name it (add it there)`);
}
