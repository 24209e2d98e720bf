/**
 * The port through which the preview gets npm packages into a folder (the per-user cache), and
 * its one real implementation: the user's own `npm`, so registries, proxies and `.npmrc` work
 * as they do for the user. Tests install a local tarball with it, offline.
 */
import { spawn } from "node:child_process";
import { isErrno } from "../core/errors.js";

/** Installs packages into a folder holding a package.json (and its package-lock.json). */
export interface PackageInstaller {
  /**
   * Installs `specs` (names, `name@range`, or tarball paths) into `dir`, pinned exactly in its
   * package.json and lock, or, given none, what its package.json names; rejects with a one-line
   * reason when one cannot be had.
   */
  install(dir: string, specs: readonly string[]): Promise<void>;
}

/** Options of {@link NpmInstaller}. */
export interface NpmInstallerOptions {
  /** The npm executable. @default "npm" (Windows: "npm.cmd") */
  npm?: string;
  /** Environment of npm. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Longest run of one install; npm is stopped after it. @default 300000 */
  timeoutMs?: number;
}

/** The bound of one npm run. @default 300000 */
export const INSTALL_TIMEOUT_MS = 300_000;

/**
 * npm waits 5 minutes per request and retries twice before it gives up on a registry it cannot
 * reach; 20 s and one retry still pass a slow proxy, and an unreachable registry is said in
 * under a minute instead of six.
 */
const FETCH_FLAGS = ["--fetch-timeout=20000", "--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=5000"];

/**
 * `npm install --save-exact` in a cache folder. Peer dependencies are not installed
 * (`--legacy-peer-deps`): a design names its React itself (or gets the runtime's), and a peer
 * range such as `^18 || ^19` would otherwise fetch a second React. Install scripts are not run:
 * a design's imports are code from the network.
 */
export class NpmInstaller implements PackageInstaller {
  readonly #npm: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #timeoutMs: number;

  constructor(options: NpmInstallerOptions = {}) {
    this.#npm = options.npm ?? (process.platform === "win32" ? "npm.cmd" : "npm");
    this.#env = options.env ?? process.env;
    this.#timeoutMs = options.timeoutMs ?? INSTALL_TIMEOUT_MS;
  }

  async install(dir: string, specs: readonly string[]): Promise<void> {
    const args = [
      "install",
      "--save-exact",
      "--no-audit",
      "--no-fund",
      "--legacy-peer-deps",
      "--ignore-scripts",
      "--loglevel=error",
      ...FETCH_FLAGS,
      "--",
      ...specs,
    ];
    const what = specs.length === 0 ? "npm install" : `npm install ${specs.join(" ")}`;
    const { code, stderr, timedOut } = await run(this.#npm, args, dir, this.#env, this.#timeoutMs);
    if (timedOut) throw new Error(`${what} did not finish within ${Math.round(this.#timeoutMs / 1000)} s: is the registry reachable?`);
    if (code !== 0) throw new Error(`${what} failed: ${npmReason(stderr)}`);
  }
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stderr: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"], shell: process.platform === "win32" });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM");
    }, timeoutMs);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      if (stderr.length < 64_000) stderr += s;
    });
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(new Error(isErrno(err, "ENOENT") ? `${cmd} not found: install Node.js with npm` : err.message));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, timedOut });
    });
  });
}

/** The line of npm's error output that says why (404, no network, bad tarball), not its log path. */
export function npmReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.replace(/^npm (error|ERR!)\s*/, "").trim())
    .filter((l) => l !== "" && !/complete log of this run|A complete log|^code E|^errno|^syscall/i.test(l));
  const telling = lines.find((l) =>
    /404|not found|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENOTCACHED|offline|No matching version|notarget|Invalid|ENOENT/i.test(l),
  );
  return (telling ?? lines[0] ?? "npm gave no reason").slice(0, 300);
}
