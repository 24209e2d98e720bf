/**
 * How the preview finds what a design imports by name. A scaffold has no package.json, so:
 * `react` and `react-dom` always come from the toolchain (one React, the service's major; the
 * usual entry points are left to the vendor bundle, other subpaths bundled from there); `@/x` is the Vite export's alias of `src/x`; any other package comes from
 * the design's own node_modules when it has one, else from the per-user cache, where it is
 * installed on first need. A package that cannot be had is one clear build error.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type * as Esbuild from "esbuild";
import type { Toolchain } from "./toolchain.js";
import { packageNameOf, type DependencyCache } from "./dependency-cache.js";
import { VENDOR_MODULES } from "./vendor-bundle.js";

/** What the resolver needs. */
export interface BareImportOptions {
  root: string;
  tools: Toolchain;
  cache: DependencyCache | undefined;
  /** Told when a package is being installed, and when that failed. */
  onInstall?: (name: string, outcome: "start" | "done" | { error: string }) => void;
}

const REACT = /^(react|react-dom|scheduler)(\/.*)?$/;
/** A failed install is not retried for this long (each try would wait for npm to fail again). */
export const INSTALL_RETRY_AFTER_MS = 60_000;
const SKIP = Symbol("mpsync-default-resolution");

/** The esbuild plugin resolving bare imports. */
export function bareImportsPlugin(o: BareImportOptions): Esbuild.Plugin {
  const failed = new Map<string, { at: number; error: string }>();
  return {
    name: "mpsync-bare-imports",
    setup(build) {
      const viaDefault = (path: string, resolveDir: string, kind: Esbuild.ImportKind) => build.resolve(path, { resolveDir, kind, pluginData: SKIP });
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === SKIP || args.namespace !== "file") return undefined;
        if (args.path.startsWith("@/")) {
          const src = existsSync(join(o.root, "src")) ? join(o.root, "src") : o.root;
          return viaDefault(`./${args.path.slice(2)}`, src, args.kind);
        }
        // React's modules come from the vendor bundle through the page's import map.
        if ((VENDOR_MODULES as readonly string[]).includes(args.path)) return { path: args.path, external: true };
        if (REACT.test(args.path)) return viaDefault(args.path, o.tools.reactDir, args.kind);
        const own = await viaDefault(args.path, args.resolveDir, args.kind);
        if (own.errors.length === 0) return own;
        const name = packageNameOf(args.path);
        if (name === undefined || o.cache === undefined) return own;
        const cache = o.cache;
        if (cache.has(name)) return viaDefault(args.path, cache.dir, args.kind);
        const before = failed.get(name);
        if (before !== undefined && Date.now() - before.at < INSTALL_RETRY_AFTER_MS) return unavailable(name, before.error);
        try {
          o.onInstall?.(name, "start");
          await cache.ensure(name);
          o.onInstall?.(name, "done");
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err);
          failed.set(name, { at: Date.now(), error });
          o.onInstall?.(name, { error });
          return unavailable(name, error);
        }
        failed.delete(name);
        return viaDefault(args.path, cache.dir, args.kind);
      });
    },
  };
}

function unavailable(name: string, error: string): Esbuild.OnResolveResult {
  return { errors: [{ text: `package "${name}" is not available: ${error}` }] };
}
