/**
 * `mpsync resolve PATH --ours|--theirs` (or `--all`): pick one side of a conflict from the
 * copies saved under `.mpsync/conflicts/`, write it (the current file backed up first), and
 * let it be pushed: a running watch sends it, else the next push or sync does.
 */
import { readFile } from "node:fs/promises";
import { join, posix, relative } from "node:path";
import { MpsyncError } from "../../core/errors.js";
import { hasConflictMarkers } from "../../core/markers.js";
import { backupLocalFile, writeLocalFile } from "../../local/local-fs.js";
import { listConflictedPaths, listConflictSides, recoveryStamp } from "../../local/recovery-layout.js";
import type { Mapping } from "../../runtime.js";
import { isLockHolderAlive, readFolderLock } from "../../state/lock.js";
import { openStateStore, type StateStore } from "../../state/state-store.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { locate } from "./restore.js";
import type { CliDocument } from "../../app/json-documents.js";

interface ResolveFlags {
  ours?: boolean;
  theirs?: boolean;
  all?: boolean;
  dir?: string;
}

/** One resolved file; `conflictAt`: when the conflict was saved (epoch ms). */
type Resolved = CliDocument<"resolve">["resolved"][number];

/** `mpsync resolve`. */
export async function runResolve(ctx: CommandContext, paths: string[], flags: ResolveFlags): Promise<number> {
  if (flags.ours === flags.theirs) throw new MpsyncError("USAGE", "say which side to keep: --ours or --theirs", { hint: "mpsync resolve PATH --theirs" });
  if (paths.length > 0 === (flags.all === true)) throw new MpsyncError("USAGE", "name the conflicted files, or pass --all (not both)");
  const side = flags.ours === true ? "ours" : "theirs";
  const targets: { mapping: Mapping; rel: string }[] = [];
  if (flags.all === true) {
    for (const mapping of await ctx.runtime.mappings(flags.dir === undefined ? [] : [flags.dir])) {
      for (const rel of await markedFiles(mapping)) targets.push({ mapping, rel });
    }
  } else {
    for (const p of paths) targets.push(await locate(ctx, p, flags.dir));
  }
  const resolved: Resolved[] = [];
  for (const t of targets) resolved.push(await resolveOne(ctx, t.mapping, t.rel, side));
  const watched = new Set<string>();
  for (const r of resolved) {
    const mapping = targets.find((t) => t.mapping.dir === r.dir)?.mapping;
    const lock = mapping === undefined ? undefined : await readFolderLock(mapping.root).catch(() => undefined);
    if (lock !== undefined && isLockHolderAlive(lock)) watched.add(r.dir);
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

async function resolveOne(ctx: CommandContext, mapping: Mapping, rel: string, side: "ours" | "theirs"): Promise<Resolved> {
  const store = openStateStore(mapping.root);
  const copy = await newestSide(store, rel, side === "ours" ? "local" : "remote");
  if (copy === undefined) {
    throw new MpsyncError("USAGE", `${mapping.label}: no saved conflict of ${rel} under .mpsync/conflicts/`, {
      hint: `see what mpsync holds of it: mpsync restore ${rel} --dir ${mapping.label} --list`,
    });
  }
  const stamp = recoveryStamp(ctx.runtime.clock.now());
  const backedUpTo = await backupLocalFile(mapping.root, rel, store.backupsDir, stamp);
  await writeLocalFile(mapping.root, rel, copy.content);
  return { dir: mapping.dir, path: rel, side, conflictAt: copy.at, backedUpTo };
}

/** The newest saved `side` of `rel`'s conflicts. */
async function newestSide(store: StateStore, rel: string, side: "local" | "remote"): Promise<{ content: Buffer; at: number | undefined } | undefined> {
  for (const copy of await listConflictSides(store.conflictsDir, rel)) {
    const content = copy.side === side ? await readFile(copy.file).catch(() => undefined) : undefined;
    if (content !== undefined) return { content, at: copy.at };
  }
  return undefined;
}

/** Files of the folder that hold conflict markers and have a saved conflict. */
async function markedFiles(mapping: Mapping): Promise<string[]> {
  const store = openStateStore(mapping.root);
  const marked: string[] = [];
  for (const rel of await listConflictedPaths(store.conflictsDir)) {
    const text = await readFile(join(mapping.root, rel), "utf8").catch(() => undefined);
    if (text !== undefined && hasConflictMarkers(text)) marked.push(rel);
  }
  return marked;
}
