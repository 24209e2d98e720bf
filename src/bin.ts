#!/usr/bin/env node
/**
 * The command's entry: V8 settings first, then the CLI (`dist/cli.cjs`, one bundle of
 * src/main.ts, scripts/bundle-cli.mjs) compiled with V8's code cache, so a command does not
 * compile its code again on every start (Node 20 offers no compile cache of its own).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { codeCacheDir, runCachedCommonJs } from "./core/code-cache.js";
import { keepMemoryLow } from "./core/heap.js";

// Before the CLI is compiled: V8 keys its code cache by these flags.
keepMemoryLow();

const cli = runCachedCommonJs(join(dirname(fileURLToPath(import.meta.url)), "cli.cjs"), codeCacheDir(process.env)) as { main: () => Promise<void> };
await cli.main();
