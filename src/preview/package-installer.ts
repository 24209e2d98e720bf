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
   * package.json and lock; rejects with a one-line reason when one cannot be had.
   */
  install(dir: string, specs: readonly string[]): Promise<void>;
}

/** Options of {@link NpmInstaller}. */
export interface NpmInstallerOptions {
  /** The npm executable. @default "npm" (Windows: "npm.cmd") */
  npm?: string;
  /** Environment of npm. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * `npm install --save-exact` in the cache folder. Peer dependencies are not installed
 * (`--legacy-peer-deps`): React comes from the preview's toolchain, one copy for every design,
 * and a peer range such as `^18 || ^19` would otherwise fetch a second React. Install scripts
 * are not run: a design's imports are code from the network.
 */
export class NpmInstaller implements PackageInstaller {
  readonly #npm: string;
  readonly #env: NodeJS.ProcessEnv;

  constructor(options: NpmInstallerOptions = {}) {
    this.#npm = options.npm ?? (process.platform === "win32" ? "npm.cmd" : "npm");
    this.#env = options.env ?? process.env;
  }

  async install(dir: string, specs: readonly string[]): Promise<void> {
    const args = ["install", "--save-exact", "--no-audit", "--no-fund", "--legacy-peer-deps", "--ignore-scripts", "--loglevel=error", "--", ...specs];
    const { code, stderr } = await run(this.#npm, args, dir, this.#env);
    if (code !== 0) throw new Error(`npm install ${specs.join(" ")} failed: ${npmReason(stderr)}`);
  }
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"], shell: process.platform === "win32" });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      if (stderr.length < 64_000) stderr += s;
    });
    child.on("error", (err) => reject(new Error(isErrno(err, "ENOENT") ? `${cmd} not found: install Node.js with npm` : err.message)));
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

/** The line of npm's error output that says why (404, no network, bad tarball), not its log path. */
export function npmReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.replace(/^npm (error|ERR!)\s*/, "").trim())
    .filter((l) => l !== "" && !/complete log of this run|A complete log|^code E|^errno|^syscall/i.test(l));
  const telling = lines.find((l) => /404|not found|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|offline|No matching version|Invalid|ENOENT/i.test(l));
  return (telling ?? lines[0] ?? "npm gave no reason").slice(0, 300);
}
