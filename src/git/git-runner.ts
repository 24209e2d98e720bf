/**
 * The one way mpsync runs git: the git command line through execFile (no shell), with
 * `core.quotepath=off` so non-ASCII names come back as written, and with the variables that
 * redirect git to another repository or index removed from the inherited environment.
 */
import { MpsyncError } from "../core/errors.js";

/** Largest output read from one git call (a `log` of a long history fits easily). */
export const GIT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

// Set by git while it runs hooks (and by some IDEs): inherited, they would point our calls at
// the caller's repository or index instead of the one found from the mapped folder.
const REDIRECTING_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_PREFIX",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_LITERAL_PATHSPECS",
  "GIT_GLOB_PATHSPECS",
  "GIT_NOGLOB_PATHSPECS",
  "GIT_ICASE_PATHSPECS",
];

/** How to run one git call. */
export interface GitCallOptions {
  cwd: string;
  /** Extra variables (GIT_INDEX_FILE, GIT_AUTHOR_DATE...), applied over the cleaned environment. */
  env?: Record<string, string>;
  /** Written to git's stdin, then closed. */
  input?: string;
  /** Exit codes that are answers, not failures (e.g. 1 for `check-ignore`). @default [0] */
  okCodes?: readonly number[];
  /** The environment to start from. @default process.env */
  baseEnv?: Record<string, string | undefined>;
}

/** What a git call printed and how it ended. */
export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** A git call that failed: the command, its exit code and git's own message. */
export class GitCommandError extends MpsyncError {
  readonly args: readonly string[];
  readonly exitCode: number | undefined;
  readonly stderr: string;

  constructor(args: readonly string[], exitCode: number | undefined, stderr: string, cause?: unknown) {
    const why = firstLine(stderr) ?? (cause instanceof Error ? cause.message : `exit code ${String(exitCode)}`);
    super("GIT_FAILED", `git ${args[0] ?? ""} failed: ${why}`, { cause });
    this.name = "GitCommandError";
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** Runs `git <args>` in `cwd`; rejects with GitCommandError unless the exit code is in okCodes. */
export function runGit(args: readonly string[], options: GitCallOptions): Promise<GitResult> {
  const env = gitEnv(options.baseEnv ?? process.env, options.env);
  const okCodes = options.okCodes ?? [0];
  return new Promise((resolve, reject) => {
    // Loaded on the first call, not at import: most commands that load this module (`status`)
    // never run git, and loading node:child_process is a visible part of a start.
    const child = process
      .getBuiltinModule("node:child_process")
      .execFile(
        "git",
        ["-c", "core.quotepath=off", ...args],
        { cwd: options.cwd, env, encoding: "utf8", maxBuffer: GIT_MAX_OUTPUT_BYTES, windowsHide: true },
        (err, stdout, stderr) => {
          const code = err === null ? 0 : typeof err.code === "number" ? err.code : undefined;
          if (code !== undefined && okCodes.includes(code)) resolve({ stdout, stderr, code });
          else if (err !== null && err.code === "ENOENT")
            reject(new GitCommandError(args, undefined, "", new Error("git is not installed or not on PATH", { cause: err })));
          else reject(new GitCommandError(args, code, stderr, err ?? undefined));
        },
      );
    // A git that exits before reading its input closes the pipe: that is its answer, not ours to report.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
  });
}

/** Trimmed stdout of a successful git call. */
export async function gitOutput(args: readonly string[], options: GitCallOptions): Promise<string> {
  return (await runGit(args, options)).stdout.trim();
}

function gitEnv(base: Record<string, string | undefined>, extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !REDIRECTING_ENV.includes(k)) env[k] = v;
  // Never wait for a credential or editor prompt: nothing here talks to a remote or asks for text.
  env.GIT_TERMINAL_PROMPT = "0";
  return { ...env, ...extra };
}

function firstLine(text: string): string | undefined {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("hint:"));
  return line?.replace(/^(fatal|error):\s*/, "");
}
