/**
 * Trees and commits from contents held in memory, with plumbing only: blobs with
 * `hash-object -w --stdin`, trees through a temporary index (`update-index --index-info`,
 * `write-tree`), commits with `commit-tree`. Nothing here reads or writes the work tree,
 * the user's index or HEAD.
 */
import { gitOutput } from "./git-runner.js";
import { withTempIndex } from "./temp-index.js";

/** Regular, non-executable file mode. */
export const BLOB_MODE = "100644";

/** Writes trees into one repository; identical contents are written once per builder. */
export class TreeBuilder {
  readonly #cwd: string;
  readonly #blobs = new Map<string, string>();

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** The blob id of `content`, written to the object database. */
  async blob(content: string): Promise<string> {
    const known = this.#blobs.get(content);
    if (known !== undefined) return known;
    // No --path: the service's text is stored byte for byte, without checkin filters (autocrlf).
    const sha = await gitOutput(["hash-object", "-w", "--stdin"], { cwd: this.#cwd, input: content });
    this.#blobs.set(content, sha);
    return sha;
  }

  /** A tree holding exactly `files` (repository-relative path -> content). */
  async tree(files: ReadonlyMap<string, string>): Promise<string> {
    const lines: string[] = [];
    for (const [path, content] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      lines.push(`${BLOB_MODE} ${await this.blob(content)}\t${path}\0`);
    }
    return withTempIndex(async (env) => {
      if (lines.length > 0) await gitOutput(["update-index", "--add", "-z", "--index-info"], { cwd: this.#cwd, env, input: lines.join("") });
      return gitOutput(["write-tree"], { cwd: this.#cwd, env });
    });
  }

  /** A commit of `tree` on `parent` (none: a root commit), with both dates set to `date`. */
  async commit(tree: string, parent: string | undefined, message: string, date: string): Promise<string> {
    const parents = parent === undefined ? [] : ["-p", parent];
    return gitOutput(["commit-tree", tree, ...parents], {
      cwd: this.#cwd,
      input: message,
      // A replay: the commit is dated when the version was made, so re-exports agree.
      env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
  }
}
