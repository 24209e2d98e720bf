/**
 * Containment checks for local file access: a relative path must resolve inside the mapped
 * folder and no existing component below the folder may be a symlink (a link could point a
 * write or a read anywhere on the machine). Remote-name policy lives in path-jail.ts; this is
 * the last line of defence at the file system edge.
 */
import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { MpsyncError, errnoCode } from "../core/errors.js";

/** Why a local path was refused. */
export type UnsafePathReason = "invalid" | "escapes-root" | "symlink" | "not-a-file";

/** A local path mpsync refuses to read or write. */
export class UnsafeLocalPathError extends MpsyncError {
  readonly reason: UnsafePathReason;
  /** The relative path as given. */
  readonly path: string;

  constructor(path: string, reason: UnsafePathReason, detail: string) {
    super("UNSAFE_PATH", `refusing local path "${path}": ${detail}`, {
      hint: reason === "symlink" ? "mpsync never follows symlinks inside a synced folder" : undefined,
    });
    this.name = "UnsafeLocalPathError";
    this.reason = reason;
    this.path = path;
  }
}

/** Absolute path of `rel` under `root`; throws UnsafeLocalPathError when it would leave root. */
export function resolveInside(root: string, rel: string): string {
  if (rel === "" || rel.includes("\0") || isAbsolute(rel) || rel.split("/").includes("..")) {
    throw new UnsafeLocalPathError(rel, "invalid", "not a relative path inside the folder");
  }
  const base = resolve(root);
  const abs = resolve(base, ...rel.split("/"));
  const back = relative(base, abs);
  if (back === "" || back.startsWith("..") || isAbsolute(back)) {
    throw new UnsafeLocalPathError(rel, "escapes-root", "it resolves outside the folder");
  }
  return abs;
}

/**
 * Checks every existing component of `rel` below `root`: none may be a symlink. Resolves the
 * leaf's lstat, or undefined when some part is absent (or a parent is not a folder).
 * `knownDirs`: absolute folders already seen to be real folders in this cycle (a WriteSession);
 * they are not asked again, and the folders seen here are added. `leafIsFolder`: `rel` names a
 * folder, which may be answered from `knownDirs` too (then undefined: known, nothing to say).
 * An empty `rel` (the root itself) answers undefined.
 */
export async function checkPathChain(root: string, rel: string, knownDirs?: Set<string>, options: { leafIsFolder?: boolean } = {}): Promise<Stats | undefined> {
  if (rel === "") return undefined;
  resolveInside(root, rel);
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  let current = resolve(root);
  for (const [i, part] of parts.entries()) {
    current = resolve(current, part);
    const leaf = i === parts.length - 1;
    if (!leaf && knownDirs?.has(current) === true) continue;
    if (leaf && options.leafIsFolder === true && knownDirs?.has(current) === true) return undefined;
    let st: Stats;
    try {
      st = await lstat(current);
    } catch (err) {
      const code = errnoCode(err);
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw err;
    }
    if (st.isSymbolicLink()) {
      throw new UnsafeLocalPathError(rel, "symlink", `${leaf ? "it" : `"${parts.slice(0, i + 1).join("/")}"`} is a symlink`);
    }
    // A file where a folder should be: nothing can exist below it.
    if (st.isDirectory()) knownDirs?.add(current);
    if (leaf) return st;
    if (!st.isDirectory()) return undefined;
  }
  return undefined;
}
