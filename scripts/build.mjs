/**
 * `npm run build`: tsc (every src file to dist/, with types), then the CLI bundle
 * (scripts/bundle-cli.mjs), then `dist/.build-stamp`, whose modification time is the moment this
 * build began: a build input saved later may be missing from dist/, so the e2e tests' global
 * setup (test/support/build-if-stale.ts) rebuilds when any input is newer than the stamp. The
 * stamp is removed first and written only when both steps succeeded.
 */
import { spawnSync } from "node:child_process";
import { rm, utimes, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";

const root = new URL("..", import.meta.url);
const stamp = new URL("dist/.build-stamp", root);
const began = new Date();
await rm(stamp, { force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const { status } = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
if (status !== 0) process.exit(status ?? 1);
await import("./bundle-cli.mjs");
await writeFile(stamp, `${began.toISOString()}\n`);
await utimes(stamp, began, began);
