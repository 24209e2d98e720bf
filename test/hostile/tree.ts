/**
 * File-system evidence for hostile tests: every entry under a folder (never following a
 * symlink, so a planted link cannot make the listing itself escape), and byte snapshots to
 * prove "nothing was written".
 */
import { createHash } from "node:crypto";
import { lstat, readFile, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** One entry found under a folder. */
export interface TreeEntry {
  /** Relative to the listed folder, `/`-separated. */
  rel: string;
  kind: "file" | "dir" | "symlink" | "other";
}

/** Every entry under `root`, depth first, sorted; symlinks are reported, not followed. */
export async function listTree(root: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const abs = join(dir, name);
      const st = await lstat(abs);
      const rel = relative(root, abs).split(sep).join("/");
      if (st.isSymbolicLink()) out.push({ rel, kind: "symlink" });
      else if (st.isDirectory()) {
        out.push({ rel, kind: "dir" });
        await walk(abs);
      } else out.push({ rel, kind: st.isFile() ? "file" : "other" });
    }
  };
  await walk(root);
  return out;
}

/** Path -> sha256 of every file under `root` (dirs as "dir"): equal snapshots mean byte-identical trees. */
export async function snapshotTree(root: string): Promise<Record<string, string>> {
  const snap: Record<string, string> = {};
  for (const entry of await listTree(root)) {
    snap[entry.rel] =
      entry.kind === "file"
        ? createHash("sha256")
            .update(await readFile(join(root, entry.rel)))
            .digest("hex")
        : entry.kind;
  }
  return snap;
}

/** Files whose bytes contain `needle` (for secret scans). */
export async function filesContaining(root: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const bytes = Buffer.from(needle, "utf8");
  for (const entry of await listTree(root)) {
    if (entry.kind !== "file") continue;
    if ((await readFile(join(root, entry.rel))).includes(bytes)) hits.push(entry.rel);
  }
  return hits;
}
