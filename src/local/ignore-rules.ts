/**
 * Which local paths sync never sees: built-in rules (tool state, VCS, dependencies, editor
 * temp files) plus the user's `ignore` patterns and `.syncignore`, all gitignore syntax.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { isErrno } from "../core/errors.js";

/** Name of the per-folder ignore file (gitignore syntax). */
export const SYNCIGNORE_FILE = ".syncignore";

/**
 * Files that hold secrets: never synced unless the user re-includes one with `!pattern` in
 * `ignore` or `.syncignore` (a design is shared with the service and the people on it).
 */
export const SECRET_IGNORE_PATTERNS: readonly string[] = [".env", ".env.*", "*.pem", "*.key", ".npmrc"];

/**
 * Rules that always apply. They live in their own matcher so a user's `!pattern` can never
 * re-include `.mpsync/` or `.git/` (syncing the tool's own state would loop forever).
 */
export const BUILTIN_IGNORE_PATTERNS: readonly string[] = [
  ".git/",
  "node_modules/",
  ".mpsync/",
  // The user's own ignore file: never pushed, never pulled (a remote one is refused).
  "/.syncignore",
  // mpsync's config and the schema init writes beside it, when a folder maps its own parent.
  "/.syncrc",
  "/.syncrc.json",
  "/.syncrc.schema.json",
  ".DS_Store",
  // vim: swap files, the `4913` write-permission probe, `file~` backups.
  "*.swp",
  "*.swo",
  "*.swx",
  "*~",
  "4913",
  // emacs lock files and auto-saves (`#file#`: a leading `#` is a comment unless escaped).
  ".#*",
  "\\#*#",
  // VS Code's save-as-admin swap, agents' and write-file-atomic-style temps, LibreOffice locks.
  "*.crswap",
  "*.tmp.*",
  "*.tmp",
  ".~lock.*",
  // JetBrains "safe write" temps.
  "*___jb_tmp___",
  "*___jb_old___",
];

/** True when `relPath` looks like a secret (SECRET_IGNORE_PATTERNS), whatever the user's rules say. */
export function looksSecret(relPath: string): boolean {
  return ignore()
    .add([...SECRET_IGNORE_PATTERNS])
    .ignores(relPath);
}

/** Decides whether a relative `/` path is excluded from sync. */
export interface IgnoreMatcher {
  /** True when `relPath` (relative, `/`-separated) is ignored; pass `isDir` for folders. */
  ignores(relPath: string, isDir?: boolean): boolean;
}

/** Builds a matcher from the built-in rules, `patterns` (config `ignore`) and `.syncignore` text. */
export function createIgnoreMatcher(options: { patterns: readonly string[]; syncignoreText?: string }): IgnoreMatcher {
  const builtin = ignore().add([...BUILTIN_IGNORE_PATTERNS]);
  // Secrets come first in the user's matcher, so a later `!.env.example` re-includes one.
  const user: Ignore = ignore().add([...SECRET_IGNORE_PATTERNS, ...options.patterns]);
  if (options.syncignoreText !== undefined) user.add(options.syncignoreText);
  return {
    ignores(relPath: string, isDir = false): boolean {
      const rel = normalizeRel(relPath);
      // The root itself (and anything that is not a path below it) is never ignored here:
      // the path jail, not the ignore rules, decides what lies outside the folder.
      if (rel === undefined) return false;
      const candidate = isDir ? `${rel}/` : rel;
      return builtin.ignores(candidate) || user.ignores(candidate);
    },
  };
}

/** Reads `<root>/.syncignore` (when present) and builds the matcher. */
export async function loadIgnoreMatcher(root: string, patterns: readonly string[]): Promise<IgnoreMatcher> {
  let syncignoreText: string | undefined;
  try {
    syncignoreText = await readFile(join(root, SYNCIGNORE_FILE), "utf8");
  } catch (err) {
    if (!isErrno(err, "ENOENT")) throw err;
  }
  return createIgnoreMatcher(syncignoreText === undefined ? { patterns } : { patterns, syncignoreText });
}

/** Strips `./` and trailing `/`; undefined for the root or a path that leaves it. */
function normalizeRel(relPath: string): string | undefined {
  const rel = relPath
    .replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "")
    .replace(/\/{2,}/g, "/");
  if (rel === "" || rel === "." || rel.startsWith("/") || rel === ".." || rel.startsWith("../")) return undefined;
  return rel;
}
