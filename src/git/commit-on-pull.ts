/**
 * `git.commitOnPull`: one commit per pulled remote version in the enclosing repository. The
 * commit is built in a temporary index from HEAD plus the pulled paths only, so whatever the
 * user has staged stays staged and never rides along; the branch moves with a compare-and-swap
 * `update-ref`, so a commit the user makes meanwhile is never overwritten.
 */
import type { V3Client } from "../api/client-types.js";
import type { Version } from "../api/schemas.js";
import { gitDate, pullCommitMessage, type VersionInfo } from "./commit-message.js";
import { GitCommandError, gitOutput, runGit } from "./git-runner.js";
import { blockingGitState, headCommit, locateRepo, type RepoLocation } from "./repo-info.js";
import { withTempIndex } from "./temp-index.js";

/** What to commit. */
export interface PulledVersionCommit {
  /** The mapped folder (absolute). */
  folderRoot: string;
  /** Pulled and removed paths, relative to the folder, `/`-separated: committed as the work tree has them. */
  paths: readonly string[];
  /** Files of the version whose work-tree copy holds local work: committed with the version's text. */
  versionTexts?: readonly { path: string; text: string }[];
  editorId: string;
  artifactId: string;
  /** The version entry of `artifactId`; undefined when the history does not list it. */
  version: VersionInfo | undefined;
}

/** Why no commit was made (or, with `committed`, what went wrong after it). */
export type CommitSkip = "not-in-repo" | "busy" | "ignored" | "unchanged" | "index-stale";

/** Whether a commit was made: its sha, or why not. */
export interface CommitOutcome {
  committed: boolean;
  sha?: string;
  reason?: string;
  /** Stable form of `reason`. */
  skip?: CommitSkip;
}

/**
 * Commits the pulled paths of one version on the current branch. Returns a reason instead of
 * committing outside a work tree or while git is busy (merge, rebase, cherry-pick, index.lock);
 * rejects with GitCommandError only when git itself fails (e.g. no user.name configured).
 */
export async function commitPulledVersion(input: PulledVersionCommit): Promise<CommitOutcome> {
  try {
    return await attemptCommit(input);
  } catch (err) {
    // The branch moved between reading HEAD and update-ref (the user committed): build again on top.
    if (err instanceof GitCommandError && err.args[0] === "update-ref") return attemptCommit(input);
    throw err;
  }
}

async function attemptCommit(input: PulledVersionCommit): Promise<CommitOutcome> {
  const repo = await locateRepo(input.folderRoot);
  if (repo === undefined) return { committed: false, skip: "not-in-repo", reason: "the folder is not inside a git work tree" };
  const blocked = blockingGitState(repo.gitDir);
  if (blocked !== undefined) return { committed: false, skip: "busy", reason: `${blocked}: not committing` };
  const cwd = repo.toplevel;
  const wanted = await dropIgnored(cwd, [...new Set(input.paths.map((p) => repo.prefix + p))]);
  const texts = input.versionTexts ?? [];
  const keptTexts = new Set(
    texts.length === 0
      ? []
      : await dropIgnored(
          cwd,
          texts.map((t) => repo.prefix + t.path),
        ),
  );
  const fromVersion = texts.filter((t) => keptTexts.has(repo.prefix + t.path));
  if (wanted.length === 0 && fromVersion.length === 0) return { committed: false, skip: "ignored", reason: "every pulled path is ignored by git" };
  const parent = await headCommit(cwd);
  return withTempIndex(async (indexEnv) => {
    if (parent !== undefined) await runGit(["read-tree", parent], { cwd, env: indexEnv });
    // --remove drops paths missing from the work tree (removed by the pull); untracked missing ones are no-ops.
    if (wanted.length > 0) await runGit(["update-index", "--add", "--remove", "-z", "--stdin"], { cwd, env: indexEnv, input: nulList(wanted) });
    if (fromVersion.length > 0)
      await stageTexts(
        cwd,
        indexEnv,
        fromVersion.map((t) => ({ path: repo.prefix + t.path, text: t.text })),
      );
    const tree = await gitOutput(["write-tree"], { cwd, env: indexEnv });
    const changed = await changedPaths(cwd, parent, tree);
    if (changed.length === 0) return { committed: false, skip: "unchanged", reason: "nothing changed in git's eyes" };
    return commitTree(repo, parent, tree, changed, input);
  });
}

/** The version entry of `artifactId`: the newest page first, older pages only when needed. */
export async function findVersionOfArtifact(client: V3Client, editorId: string, artifactId: string): Promise<Version | undefined> {
  for (let skip = 0; ;) {
    const page = await client.listVersions(editorId, skip);
    const found = page.versions.find((v) => v.artifactId === artifactId);
    if (found !== undefined) return found;
    if (!page.hasMore || page.versions.length === 0) return undefined;
    skip += page.versions.length;
  }
}

async function commitTree(repo: RepoLocation, parent: string | undefined, tree: string, changed: string[], input: PulledVersionCommit): Promise<CommitOutcome> {
  const cwd = repo.toplevel;
  const message = pullCommitMessage(input.version, input.editorId, input.artifactId);
  const dateEnv: Record<string, string> = input.version === undefined ? {} : { GIT_AUTHOR_DATE: gitDate(input.version.timeCreated) };
  const parents = parent === undefined ? [] : ["-p", parent];
  const sha = await gitOutput(["commit-tree", tree, ...parents], { cwd, env: dateEnv, input: message });
  // Checked again right before moving the branch: a merge may have started while the tree was built.
  const blocked = blockingGitState(repo.gitDir);
  if (blocked !== undefined) return { committed: false, skip: "busy", reason: `${blocked}: not committing` };
  const subject = message.split("\n", 1)[0] ?? "";
  // Compare-and-swap on the old HEAD ("" = must not exist yet, for an unborn branch).
  await runGit(["update-ref", "-m", `commit (mpsync): ${subject}`, "HEAD", sha, parent ?? ""], { cwd });
  const stale = await refreshIndexEntries(cwd, parent, sha, changed);
  return stale === undefined ? { committed: true, sha } : { committed: true, sha, skip: "index-stale", reason: stale };
}

/**
 * Points the user's index entries of the committed paths at the new commit, so they do not
 * show as staged reversals. Paths the user had staged differently are left as they are.
 */
async function refreshIndexEntries(cwd: string, parent: string | undefined, sha: string, changed: string[]): Promise<string | undefined> {
  const staged = new Set(
    splitNul(
      parent === undefined
        ? await gitOutputRaw(["ls-files", "-z"], cwd)
        : await gitOutputRaw(["diff-index", "--cached", "-z", "--name-only", "--no-renames", parent], cwd),
    ),
  );
  const paths = changed.filter((p) => !staged.has(p));
  if (paths.length === 0) return undefined;
  try {
    await runGit(["reset", "-q", sha, "--pathspec-from-file=-", "--pathspec-file-nul"], { cwd, input: nulList(paths), env: { GIT_LITERAL_PATHSPECS: "1" } });
    return undefined;
  } catch (err) {
    // The commit stands; only the index lags (e.g. another git process took index.lock).
    return `committed, but the index could not be refreshed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Paths (repository-relative) between `parent` and `tree` that differ. */
async function changedPaths(cwd: string, parent: string | undefined, tree: string): Promise<string[]> {
  const args = parent === undefined ? ["ls-tree", "-r", "-z", "--name-only", tree] : ["diff-tree", "-r", "-z", "--name-only", "--no-renames", parent, tree];
  return splitNul(await gitOutputRaw(args, cwd));
}

/** `paths` minus those git ignores (tracked files are never ignored, as with `git add`). */
/** Stages `text` as the content of each path (blobs written first), whatever the work tree holds. */
async function stageTexts(cwd: string, indexEnv: Record<string, string>, files: readonly { path: string; text: string }[]): Promise<void> {
  const entries: string[] = [];
  for (const f of files) {
    const sha = await gitOutput(["hash-object", "-w", "--stdin"], { cwd, input: f.text });
    entries.push(`100644 ${sha}\t${f.path}\0`);
  }
  await runGit(["update-index", "-z", "--index-info"], { cwd, env: indexEnv, input: entries.join("") });
}

async function dropIgnored(cwd: string, paths: string[]): Promise<string[]> {
  const r = await runGit(["check-ignore", "--stdin", "-z"], { cwd, input: nulList(paths), okCodes: [0, 1] });
  const ignored = new Set(splitNul(r.stdout));
  return paths.filter((p) => !ignored.has(p));
}

async function gitOutputRaw(args: string[], cwd: string): Promise<string> {
  return (await runGit(args, { cwd })).stdout;
}

function nulList(paths: readonly string[]): string {
  return paths.map((p) => `${p}\0`).join("");
}

function splitNul(text: string): string[] {
  return text.split("\0").filter((s) => s !== "");
}
