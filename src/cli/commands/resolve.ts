/**
 * `mpsync resolve PATH --ours|--theirs` (or `--all`): pick one side of a conflict from the
 * copies saved under `.mpsync/conflicts/` (src/app/resolve-conflict.ts) and say how it is sent.
 */
import { posix, relative } from "node:path";
import { conflictedFiles, isFolderWatched, resolveConflict, type ResolvedConflict } from "../../app/resolve-conflict.js";
import { locateFile, type LocatedFile } from "../../app/restore-file.js";
import { MpsyncError } from "../../core/errors.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";

interface ResolveFlags {
  ours?: boolean;
  theirs?: boolean;
  all?: boolean;
  dir?: string;
}

/** `mpsync resolve`. */
export async function runResolve(ctx: CommandContext, paths: string[], flags: ResolveFlags): Promise<number> {
  if (flags.ours === flags.theirs) throw new MpsyncError("USAGE", "say which side to keep: --ours or --theirs", { hint: "mpsync resolve PATH --theirs" });
  if (paths.length > 0 === (flags.all === true)) throw new MpsyncError("USAGE", "name the conflicted files, or pass --all (not both)");
  const side = flags.ours === true ? "ours" : "theirs";
  const targets: LocatedFile[] = [];
  if (flags.all === true) {
    for (const mapping of await ctx.runtime.mappings(flags.dir === undefined ? [] : [flags.dir])) {
      for (const rel of await conflictedFiles(mapping)) targets.push({ mapping, rel });
    }
  } else {
    for (const p of paths) targets.push(await locateFile(ctx.runtime, ctx.io.cwd, p, flags.dir));
  }
  const resolved: ResolvedConflict[] = [];
  for (const t of targets) resolved.push(await resolveConflict(ctx.runtime, t.mapping, t.rel, side));
  const watched = new Set<string>();
  for (const r of resolved) {
    const mapping = targets.find((t) => t.mapping.dir === r.dir)?.mapping;
    if (mapping !== undefined && (await isFolderWatched(mapping))) watched.add(r.dir);
  }
  ctx.out.result("resolve", { ok: true, resolved }, () => {
    if (resolved.length === 0) ctx.out.info("no file holds conflict markers: nothing to resolve");
    for (const r of resolved) {
      const when = r.conflictAt === undefined ? "" : ` of ${new Date(r.conflictAt).toISOString()}`;
      ctx.out.success(`${posix.join(ctx.out.folder(r.dir), r.path)}: kept ${side === "ours" ? "your side" : "the service's side"} of the conflict${when}`);
      if (r.backedUpTo !== undefined) ctx.out.info(ctx.out.c.dim(`  the file it replaced is in ${relative(ctx.io.cwd, r.backedUpTo)}`));
      ctx.out.info(ctx.out.c.dim(watched.has(r.dir) ? "  the running mpsync watch syncs it" : "  send it with mpsync push, or mpsync sync"));
    }
  });
  return EXIT.ok;
}
