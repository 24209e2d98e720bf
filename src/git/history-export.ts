/**
 * `mpsync history export`: every version of a design, oldest first, as one commit each on a
 * branch of the enclosing repository, its files under the mapped folder's path so that
 * `git log -p BRANCH -- <folder>` and `git blame BRANCH -- <file>` work. Only plumbing: the
 * work tree, the index and the current branch are never touched. Each commit carries an
 * `Artifact-Id` trailer; a re-run skips the versions already on the branch.
 *
 * The API cannot list the files of a past artifact (only the active one), so each version is
 * read by name from every name known: the active artifact, the folder's synced files, the
 * branch's files and the names found in versions replayed before it; then the relative
 * imports of what was read are followed (`import-graph.ts`), so a file only a past version
 * had is found from the file that imports it. Reading a name an artifact lacks just leaves it
 * out of the answer; an import no name satisfies is reported with its version.
 */
import type { V3Client } from "../api/client-types.js";
import { MpsyncError } from "../core/errors.js";
import type { Version } from "../api/schemas.js";
import { jailRemoteNames } from "../sync/remote-snapshot.js";
import { artifactIdOf, gitDate, historyCommitMessage, versionSubject } from "./commit-message.js";
import { gitOutput, runGit } from "./git-runner.js";
import { locateRepo } from "./repo-info.js";
import { TreeBuilder } from "./tree-builder.js";
import { unresolvedImports } from "./import-graph.js";
import { DEFAULT_HISTORY_BRANCH } from "./history-branch.js";

export { DEFAULT_HISTORY_BRANCH };

/** What to export. */
export interface HistoryExportOptions {
  client: V3Client;
  editorId: string;
  /** The mapped folder (absolute; it need not exist yet). */
  folderRoot: string;
  /** @default "design-history" */
  branch?: string;
  /** More file names to try (e.g. the folder's synced files from state.json). */
  knownNames?: Iterable<string>;
  /** Called after each commit (progress output). */
  onCommit?: (commit: ExportedCommit) => void;
}

/** One commit added to the branch. */
export interface ExportedCommit {
  versionLabel: string;
  title: string;
  artifactId: string;
  sha: string;
  files: number;
}

/** A remote file name the path jail refused: left out of the commit. */
export interface RefusedExportName {
  versionLabel: string;
  name: string;
  reason: string;
}

/** A version whose code imports files no name read could satisfy: its commit lacks them. */
export interface IncompleteVersion {
  versionLabel: string;
  /** Each import not found (`components/Faq`) and the file that imports it. */
  missing: { target: string; from: string }[];
}

/** What an export did. */
export interface HistoryExportResult {
  branch: string;
  /** The folder inside the repository (`design/`; "" at the top). */
  prefix: string;
  added: ExportedCommit[];
  /** Versions already on the branch. */
  skipped: number;
  /** Refused names, once per name (the first version that had it). */
  refused: RefusedExportName[];
  /** Versions committed without some of the files their code imports. */
  incomplete: IncompleteVersion[];
}

/** What the branch already holds. */
interface BranchState {
  tip: string | undefined;
  artifactIds: Set<string>;
  /** Names of the tip's files under the folder, relative to the folder. */
  names: string[];
}

/** Replays the design's versions missing from `branch`, oldest first; returns what was added. */
export async function exportHistory(o: HistoryExportOptions): Promise<HistoryExportResult> {
  const branch = o.branch ?? DEFAULT_HISTORY_BRANCH;
  const repo = await locateRepo(o.folderRoot);
  if (repo === undefined) {
    throw new MpsyncError("USAGE", `${o.folderRoot} is not inside a git repository: history export writes a branch of the enclosing repository`, {
      hint: "run git init in the folder or one of its parents, or map a folder inside a repository",
    });
  }
  const cwd = repo.toplevel;
  const ref = await branchRef(cwd, branch);
  const state = await readBranch(cwd, ref, repo.prefix);
  const versions = [...(await o.client.listAllVersions(o.editorId))].sort(byAge);
  const todo = versions.filter((v) => !state.artifactIds.has(v.artifactId));
  const names = new Set<string>([...(await o.client.getActiveArtifact(o.editorId)).files, ...(o.knownNames ?? []), ...state.names]);
  const builder = new TreeBuilder(cwd);
  const result: HistoryExportResult = { branch, prefix: repo.prefix, added: [], skipped: versions.length - todo.length, refused: [], incomplete: [] };
  let parent = state.tip;
  for (const version of todo) {
    const files = await readVersionFiles(o, version, names, result);
    const tree = await builder.tree(new Map([...files].map(([name, text]) => [repo.prefix + name, text])));
    const sha = await builder.commit(tree, parent, historyCommitMessage(version, o.editorId, version.artifactId), gitDate(version.timeCreated));
    // Compare-and-swap per commit: progress survives an interruption, and a concurrent writer is never overwritten.
    await runGit(["update-ref", "-m", `mpsync history export: ${versionSubject(version, version.artifactId)}`, ref, sha, parent ?? ""], { cwd });
    parent = sha;
    const added = { versionLabel: version.versionLabel, title: version.title, artifactId: version.artifactId, sha, files: files.size };
    result.added.push(added);
    o.onCommit?.(added);
  }
  return result;
}

/**
 * The jailed files of one version: every known name, then the names its imports point at,
 * until no import leads to a name not yet tried. Refused names are recorded once each.
 */
async function readVersionFiles(o: HistoryExportOptions, version: Version, names: Set<string>, result: HistoryExportResult): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const tried = new Set(names);
  await readInto(o, version, [...names].sort(), files, names, result);
  for (;;) {
    const fresh = unresolvedImports(files)
      .flatMap((imp) => imp.candidates)
      .filter((name) => !tried.has(name));
    if (fresh.length === 0) break;
    for (const name of fresh) tried.add(name);
    await readInto(o, version, [...new Set(fresh)].sort(), files, names, result);
  }
  const missing = unresolvedImports(files).map(({ target, from }) => ({ target, from }));
  if (missing.length > 0) result.incomplete.push({ versionLabel: version.versionLabel, missing });
  return files;
}

async function readInto(
  o: HistoryExportOptions,
  version: Version,
  wanted: string[],
  files: Map<string, string>,
  names: Set<string>,
  result: HistoryExportResult,
): Promise<void> {
  if (wanted.length === 0) return;
  const read = await o.client.readFiles(o.editorId, version.artifactId, wanted);
  const { allowed, refused } = jailRemoteNames(read.map((f) => f.name));
  for (const r of refused) {
    if (!result.refused.some((x) => x.name === r.name)) result.refused.push({ versionLabel: version.versionLabel, name: r.name, reason: r.reason });
  }
  const ok = new Set(allowed);
  for (const f of read) {
    names.add(f.name);
    if (ok.has(f.name)) files.set(f.name, f.content);
  }
}

/** `refs/heads/<branch>`, after checking the name and that no work tree has it checked out. */
async function branchRef(cwd: string, branch: string): Promise<string> {
  const ref = `refs/heads/${branch}`;
  const valid = await runGit(["check-ref-format", ref], { cwd, okCodes: [0, 1] });
  if (valid.code !== 0 || branch.startsWith("-")) throw new MpsyncError("USAGE", `${JSON.stringify(branch)} is not a valid branch name`);
  const worktrees = await gitOutput(["worktree", "list", "--porcelain"], { cwd });
  if (worktrees.split("\n").includes(`branch ${ref}`)) {
    // Moving a checked-out branch would change that work tree's HEAD under the user's feet.
    throw new MpsyncError("USAGE", `branch ${branch} is checked out: history export never moves a checked-out branch`, {
      hint: "switch to another branch, or choose one with --into",
    });
  }
  return ref;
}

/** The branch's tip, the artifacts it already records and its files under `prefix`. */
async function readBranch(cwd: string, ref: string, prefix: string): Promise<BranchState> {
  const tip = await gitOutput(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { cwd, okCodes: [0, 1] });
  if (tip === "") return { tip: undefined, artifactIds: new Set(), names: [] };
  // rev-list, not log: user settings such as log.showSignature never reach its output.
  const log = await runGit(["rev-list", "--format=%B%x00", tip], { cwd });
  const artifactIds = new Set<string>();
  for (const message of log.stdout.split("\0")) {
    const id = artifactIdOf(message);
    if (id !== undefined) artifactIds.add(id);
  }
  if (artifactIds.size === 0) {
    throw new MpsyncError("USAGE", `branch ${ref.slice("refs/heads/".length)} exists and was not written by mpsync history export`, {
      hint: "choose another branch with --into",
    });
  }
  const listing = await runGit(["ls-tree", "-r", "-z", "--name-only", "--full-tree", tip], { cwd });
  const names = listing.stdout
    .split("\0")
    .filter((p) => p !== "" && p.startsWith(prefix))
    .map((p) => p.slice(prefix.length));
  return { tip, artifactIds, names };
}

/** Oldest first: labels number versions in creation order (times may tie within a second). */
function byAge(a: Version, b: Version): number {
  return labelNumber(a) - labelNumber(b) || a.timeCreated - b.timeCreated;
}

function labelNumber(v: Version): number {
  return Number(v.versionLabel.slice(1));
}
