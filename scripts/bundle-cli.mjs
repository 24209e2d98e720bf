/**
 * Bundles the CLI: `dist/cli.cjs`, one CommonJS file of src/main.ts and everything it uses (run
 * after `tsc`, see `npm run build`), and its entry `dist/bin.cjs` (src/bin.ts), which runs it
 * through V8's code cache (src/core/code-cache.ts); the library entry (`dist/index.js`) and
 * every other tsc output stay as they are.
 *
 * Why one file: Node 20 has no compile cache for ES modules; a CommonJS file can be compiled
 * with V8's code cache, and one file is one cache. Commands stay lazy: each command's
 * implementation is reached by `import()` in its declaration (src/cli/declare/), which esbuild
 * turns into a module that runs on first use, so a command runs only its own modules' code
 * (test/cli/lazy-commands.test.ts, from V8's coverage). The first run after an install has no
 * cache yet and compiles everything (BENCHMARKS.md, "Figures behind the code's choices").
 *
 * Left outside the bundle: esbuild (the emulator's publish check only) and fsevents. Every
 * dependency is bundled as its package publishes it, through its public entry points: no
 * module of a dependency is replaced, so a new release of one is bundled as it was published.
 * `dist/cli.inputs.json` lists the source files the bundle holds. `import.meta.url`
 * (package.json lookup) becomes the bundle's own URL. Names stay unminified so stack traces
 * stay readable.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { build } from "esbuild";

const root = new URL("..", import.meta.url);
const dist = new URL("dist/", root);

/** What both bundles share: CommonJS for Node 20.19, `import.meta.url` the bundle's own URL. */
const COMMON_JS = {
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20.19",
  define: { "import.meta.url": "__mpsyncImportMetaUrl" },
  // Strict mode first, as the ES modules it was written as (esbuild's own directive would come
  // after this line and count for nothing).
  banner: { js: '"use strict";\nconst __mpsyncImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  legalComments: "none",
  logLevel: "warning",
  absWorkingDir: root.pathname,
};

// Left by builds before the single bundle.
await rm(new URL("chunks/", dist), { recursive: true, force: true });
const result = await build({
  ...COMMON_JS,
  entryPoints: [new URL("src/main.ts", root).pathname],
  outfile: new URL("cli.cjs", dist).pathname,
  external: ["esbuild", "fsevents"],
  metafile: true,
});
// The command's entry (package.json's `bin`): src/bin.ts and the two files it imports, as
// CommonJS, so no command starts Node's ES module loader (src/bin.ts).
await build({ ...COMMON_JS, entryPoints: [new URL("src/bin.ts", root).pathname], outfile: new URL("bin.cjs", dist).pathname });
// esbuild writes ASCII (charset "ascii") except inside the comments it keeps (a few emoji in
// p-queue's docs): those are escaped too, so the whole file is ASCII and the loader reads it as
// a one-byte string (src/core/code-cache.ts) instead of decoding UTF-8 at every start.
const cli = new URL("cli.cjs", dist);
const text = await readFile(cli, "utf8");
await writeFile(
  cli,
  text.replace(/[^\0-\x7f]/gu, (c) => `\\u{${c.codePointAt(0)?.toString(16)}}`),
);

// The source files the bundle holds (test/cli/lazy-commands.test.ts checks which ones a command runs).
const inputs = Object.values(result.metafile.outputs).flatMap((o) => Object.keys(o.inputs));
await writeFile(new URL("cli.inputs.json", dist), `${JSON.stringify(inputs, null, 1)}\n`);
