/**
 * React, bundled once per `mpsync dev` as browser modules that the page's import map names:
 * the design's bundle leaves `react` and `react-dom` out, so a save rebuilds and reloads a few
 * kilobytes instead of a megabyte of React (Vite pre-bundles dependencies for the same reason).
 * React is CommonJS: each module gets an ES entry re-exporting the names Node finds on it.
 */
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import type { Toolchain } from "./toolchain.js";

/** The React modules a design may import, as bare specifiers. */
export const VENDOR_MODULES = ["react", "react/jsx-runtime", "react/jsx-dev-runtime", "react-dom", "react-dom/client"] as const;

/** The bundled modules, by URL path, and the import map naming them. */
export interface VendorBundle {
  files: Map<string, string>;
  importMap: { imports: Record<string, string> };
}

/** Bundles React's modules for the browser (development builds, as the service's editor shows errors). */
export async function buildVendorBundle(tools: Toolchain, outdir: string): Promise<VendorBundle> {
  const req = createRequire(join(tools.reactDir, "package.json"));
  const entryName = (spec: string): string => spec.replace(/\//g, "_");
  const result = await tools.esbuild.build({
    entryPoints: Object.fromEntries(VENDOR_MODULES.map((m) => [entryName(m), `vendor:${m}`])),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    write: false,
    outdir,
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"development"' },
    plugins: [
      {
        name: "mpsync-vendor-entries",
        setup(build) {
          build.onResolve({ filter: /^vendor:/ }, (args) => ({ path: args.path.slice("vendor:".length), namespace: "vendor-entry" }));
          build.onLoad({ filter: /.*/, namespace: "vendor-entry" }, (args) => {
            const names = Object.keys(req(args.path) as object).filter((n) => n !== "default" && /^[A-Za-z_$][\w$]*$/.test(n));
            const lines = [`import * as ns from ${JSON.stringify(args.path)};`, "const m = ns.default ?? ns;", "export default m;"];
            if (names.length > 0) lines.push(`export const { ${names.join(", ")} } = m;`);
            return { contents: lines.join("\n"), resolveDir: tools.reactDir, loader: "js" };
          });
        },
      },
    ],
  });
  const files = new Map<string, string>();
  const hash = createHash("sha1");
  for (const f of result.outputFiles) hash.update(f.text);
  const base = `/__mpsync/vendor/${hash.digest("hex").slice(0, 12)}`;
  for (const f of result.outputFiles) files.set(`${base}/${relative(outdir, f.path)}`, f.text);
  return { files, importMap: { imports: Object.fromEntries(VENDOR_MODULES.map((m) => [m, `${base}/${entryName(m)}.js`])) } };
}
