/** Helpers for the git suites: a real repository in a temp folder, and the CLI run in-process. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { runCli } from "../../src/cli/program.js";

// A suite started from a git hook inherits these; they would aim every call at the outer repo.
const REDIRECTING = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"];

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !REDIRECTING.includes(k)) env[k] = v;
  return env;
}

/** Runs git in `cwd` and returns its trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "core.quotepath=off", ...args], { cwd, env: cleanEnv(), encoding: "utf8" }).trim();
}

/** `git init` with a local identity and no signing, so commits work on any machine. */
export function initRepo(dir: string): void {
  git(dir, "init", "-q");
  git(dir, "config", "user.name", "Test User");
  git(dir, "config", "user.email", "test@example.com");
  git(dir, "config", "commit.gpgsign", "false");
  git(dir, "config", "core.autocrlf", "false");
}

/** Subjects of `rev`'s history, oldest first. */
export function subjects(cwd: string, rev: string): string[] {
  const out = git(cwd, "log", "--reverse", "--format=%s", rev);
  return out === "" ? [] : out.split("\n");
}

/** Paths staged in the index (relative to the top level). */
export function stagedPaths(cwd: string): string[] {
  const out = git(cwd, "diff", "--cached", "--name-only");
  return out === "" ? [] : out.split("\n");
}

/** Hash of every file under `root` except `.git`, by relative path: detects any work-tree change. */
export async function treeFingerprint(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.name === ".git") continue;
      if (entry.isDirectory()) await walk(abs);
      else
        out[relative(root, abs)] = createHash("sha256")
          .update(await readFile(abs))
          .digest("hex");
    }
  };
  await walk(root);
  return out;
}

/** What an in-process CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `mpsync <args>` in-process with `cwd` and `env`, capturing its output. */
export async function runMpsync(args: string[], cwd: string, env: Record<string, string>): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  stdout.on("data", (c: Buffer) => chunks.out.push(c));
  stderr.on("data", (c: Buffer) => chunks.err.push(c));
  const code = await runCli({
    argv: ["node", "mpsync", ...args],
    cwd,
    env: { ...env, NO_COLOR: "1" },
    stdout,
    stderr,
    stdin: Readable.from([]),
    onSignal: () => () => undefined,
  });
  return { code, stdout: Buffer.concat(chunks.out).toString("utf8"), stderr: Buffer.concat(chunks.err).toString("utf8") };
}
