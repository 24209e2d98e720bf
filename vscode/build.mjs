// Bundles the extension into one CommonJS file VS Code loads (vscode is the host's module).
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: [join(here, "src/extension.ts")],
  outfile: join(here, "out/extension.cjs"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  external: ["vscode"],
  minify: true,
  sourcemap: false,
  logLevel: "warning",
});
