/**
 * The design's Vite dev server, in middleware mode behind the preview's own address, as the
 * service's exports configure it (`@vitejs/plugin-react`, the `@/` alias, PostCSS), with what a
 * synced folder needs: no file watcher of its own (the daemon's change source feeds it), the
 * dependency cache outside the folder, and `.mpsync/` never served.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger, ViteDevServer } from "vite";
import type { DesignCss } from "./design-css.js";
import { mpsyncPlugin } from "./mpsync-plugin.js";
import { providedEntry } from "./page.js";
import type { PreviewFront } from "./preview-front.js";
import type { Toolchain } from "./toolchain.js";

/** What `createViteServer` takes. */
export interface ViteServerOptions {
  root: string;
  tools: Toolchain;
  /** The folder whose node_modules holds the design's packages. */
  packagesDir: string;
  css: DesignCss;
  front: PreviewFront;
  /** Vite's own cache (pre-bundled dependencies), outside the synced folder. */
  cacheDir: string;
  logger: Logger;
  fetch: ((name: string) => Promise<void>) | undefined;
}

/** Starts Vite for the design (not yet serving: attach its middlewares to the front). */
export async function createViteServer(o: ViteServerOptions): Promise<ViteDevServer> {
  const src = existsSync(join(o.root, "src")) ? join(o.root, "src") : o.root;
  const entry = providedEntry(o.root);
  return o.tools.vite.createServer({
    configFile: false,
    root: o.root,
    cacheDir: o.cacheDir,
    appType: "spa",
    clearScreen: false,
    customLogger: o.logger,
    plugins: [mpsyncPlugin({ root: o.root, packagesDir: o.packagesDir, fetch: o.fetch }), o.tools.react()],
    css: { postcss: { plugins: o.css.plugins as never[] } },
    resolve: {
      alias: [
        { find: /^@\//, replacement: `${src}/` },
        // The scaffold's `@import 'tailwindcss/base'` lines: Tailwind's own files, from the toolchain.
        { find: /^tailwindcss\/(base|components|utilities)(\.css)?$/, replacement: join(o.tools.tailwindDir, "$1.css") },
      ],
    },
    optimizeDeps: entry === undefined ? {} : { entries: [entry] },
    server: {
      middlewareMode: true,
      hmr: { server: o.front.server },
      watch: null,
      fs: {
        allow: [o.root, o.packagesDir, o.cacheDir, o.tools.from, o.tools.tailwindDir],
        deny: [".env", ".env.*", "*.{crt,pem}", "**/.mpsync/**", "**/.git/**", ".syncrc"],
      },
    },
  });
}
