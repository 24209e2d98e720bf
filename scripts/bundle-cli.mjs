/**
 * Bundles the CLI: `dist/bin.js` plus one chunk per lazily loaded part in `dist/chunks/`,
 * written over tsc's `dist/bin.js` (run after `tsc`, see `npm run build`). The library entry
 * (`dist/index.js`) and every other tsc output stay as they are.
 *
 * Why: Node 20 has no compile cache for ES modules, and loading about 200 small module files
 * (zod alone is 95) costs more than compiling the same code as a few files: `mpsync status`
 * went from about 6.3x to about 4.5x `node -e 0` (15 interleaved runs by hand; memory did not
 * change measurably). Each command still loads only its own chunks.
 *
 * Left outside the bundle: undici (loaded part by part from node_modules, see
 * src/api/undici-lean.ts), esbuild (the emulator's publish check only) and fsevents.
 * `dist/chunks/inputs.json` lists the source files of each output file.
 * The banner gives bundled CommonJS code `require`, `__filename` and `__dirname` (pino and
 * write-file-atomic read them); names stay unminified so stack traces stay readable.
 */
import { rm, writeFile } from "node:fs/promises";
import { build } from "esbuild";

const root = new URL("..", import.meta.url);
const dist = new URL("dist/", root);

await rm(new URL("chunks/", dist), { recursive: true, force: true });
const result = await build({
  entryPoints: [new URL("src/bin.ts", root).pathname],
  outdir: dist.pathname,
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  external: ["undici", "esbuild", "fsevents"],
  banner: {
    js: [
      'import { createRequire as __mpsyncCreateRequire } from "node:module";',
      'import { fileURLToPath as __mpsyncFileURLToPath } from "node:url";',
      "const require = __mpsyncCreateRequire(import.meta.url);",
      "const __filename = __mpsyncFileURLToPath(import.meta.url);",
      'const __dirname = __mpsyncFileURLToPath(new URL(".", import.meta.url));',
    ].join("\n"),
  },
  legalComments: "none",
  logLevel: "warning",
  absWorkingDir: root.pathname,
  metafile: true,
});
// Which source files each output holds (test/cli/lazy-commands.test.ts checks what a command loads).
const outputs = Object.fromEntries(Object.entries(result.metafile.outputs).map(([out, { inputs }]) => [out, Object.keys(inputs)]));
await writeFile(new URL("chunks/inputs.json", dist), `${JSON.stringify(outputs, null, 1)}\n`);
