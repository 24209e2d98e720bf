#!/usr/bin/env node
/**
 * The command's entry: V8 settings (from the first connection), then the CLI (`dist/cli.cjs`, one bundle of
 * src/main.ts, scripts/bundle-cli.mjs) through a compile cache, so a command does not compile
 * its code again on every start: V8's code cache kept by mpsync (src/core/code-cache.ts) on
 * every Node, or Node's own (22.1 and later) with `MPSYNC_CODE_CACHE=node`.
 *
 * The command users run is this file bundled as CommonJS, `dist/bin.cjs` (package.json's
 * `bin`): Node then never starts its ES module loader, which an ES module entry (tsc's
 * `dist/bin.js`, which works the same) costs every command (CPU for the loader and the ES
 * module views of the built-ins it imports).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT } from "./cli/exit-codes.js";
import { codeCacheDir, commandEntry, nodeCompileCache, runCachedCommonJs, runWithNodeCompileCache } from "./core/code-cache.js";
import { keepMemoryLowFromFirstConnection, restoreV8Defaults } from "./core/heap.js";

// V8's memory settings from the first connection on, and its defaults back before the code
// cache is written at exit (this listener comes before the cache's): V8 keys code caches by
// its flags.
keepMemoryLowFromFirstConnection();
process.once("exit", restoreV8Defaults);

const file = join(dirname(fileURLToPath(import.meta.url)), "cli.cjs");
const cacheDir = codeCacheDir(process.env);
const nodeCache = nodeCompileCache(process.env);
const cli = (
  nodeCache !== undefined
    ? runWithNodeCompileCache(file, cacheDir, nodeCache)
    : runCachedCommonJs(file, cacheDir, {
        // The global options of src/cli/program.ts that take a value.
        entry: commandEntry(process.argv.slice(2), ["-c", "--config", "--log-file"]),
        // A usage error ran no command: its run says nothing of what the command compiles.
        skipExitCodes: [EXIT.usage],
      })
) as { main: () => Promise<void> };
// main() catches what a command throws and exits with its code; a rejection here is a bug
// that Node reports as such (an unhandled rejection: its stack, exit 1).
void cli.main();
