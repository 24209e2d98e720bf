/**
 * Where a mapped folder sits in git: the work tree's top level, the git dir (per worktree),
 * the folder's path inside the repository, and whether git is in the middle of something.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { GIT_INDEX_LOCK } from "../local/git-lock.js";
import { GitCommandError, gitOutput } from "./git-runner.js";

/** A mapped folder's place in its enclosing repository. */
export interface RepoLocation {
  /** Top level of the work tree (absolute). */
  toplevel: string;
  /** The git dir of this work tree (absolute; `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The folder relative to `toplevel`, `/`-separated, with a trailing `/` ("" at the top). */
  prefix: string;
}

// State files git leaves while an operation waits for the user; committing then would
// record a half-merged tree or slip a commit into the middle of a rebase.
const BLOCKING_STATE: readonly [string, string][] = [
  ["MERGE_HEAD", "a merge is in progress"],
  ["rebase-merge", "a rebase is in progress"],
  ["rebase-apply", "a rebase (or git am) is in progress"],
  ["CHERRY_PICK_HEAD", "a cherry-pick is in progress"],
  ["REVERT_HEAD", "a revert is in progress"],
  [GIT_INDEX_LOCK, "another git process holds .git/index.lock"],
];

/**
 * The repository enclosing `folder` (which need not exist yet: its nearest existing ancestor
 * is asked), or undefined outside a work tree (including inside a `.git` dir or a bare repo).
 */
export async function locateRepo(folder: string): Promise<RepoLocation | undefined> {
  const { existing, missing } = nearestExisting(resolve(folder));
  let out: string;
  try {
    out = await gitOutput(["rev-parse", "--is-inside-work-tree", "--show-toplevel", "--absolute-git-dir", "--show-prefix"], { cwd: existing });
  } catch (err) {
    // 128: "not a git repository"; anything else (git missing) is worth reporting.
    if (err instanceof GitCommandError && err.exitCode === 128) return undefined;
    throw err;
  }
  const [inside, toplevel, gitDir, prefix = ""] = out.split("\n");
  if (inside !== "true" || toplevel === undefined || gitDir === undefined) return undefined;
  return { toplevel, gitDir, prefix: prefix + missing.map((m) => `${m}/`).join("") };
}

/** Why committing must wait (merge, rebase, cherry-pick, revert, index.lock), or undefined. */
export function blockingGitState(gitDir: string): string | undefined {
  for (const [file, why] of BLOCKING_STATE) if (existsSync(join(gitDir, file))) return why;
  return undefined;
}

/** The current commit, or undefined on an unborn branch. */
export async function headCommit(cwd: string): Promise<string | undefined> {
  const out = await gitOutput(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd, okCodes: [0, 1] });
  return out === "" ? undefined : out;
}

function nearestExisting(abs: string): { existing: string; missing: string[] } {
  const missing: string[] = [];
  let dir = abs;
  while (!isDirectory(dir) && dirname(dir) !== dir) {
    missing.unshift(basename(dir));
    dir = dirname(dir);
  }
  return { existing: dir, missing };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
