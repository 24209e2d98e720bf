/** `mpsync restore PATH`: list every copy mpsync holds of a file, and put one back. */
import { mkdir, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { MpsyncError } from "../../core/errors.js";
import { writeFileAtomically } from "../../local/atomic-write.js";
import { describeBackups, measureBackups } from "../../local/backup-retention.js";
import { backupLocalFile } from "../../local/local-fs.js";
import { checkRemoteName } from "../../local/path-jail.js";
import type { Mapping } from "../../runtime.js";
import { chooseCopy, listCopies, restoreChange, type FileCopy } from "../../state/copies.js";
import { recoveryStamp, stampTime } from "../../local/recovery-layout.js";
import { openStateStore } from "../../state/state-store.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";

interface RestoreFlags {
  dir?: string;
  list?: boolean;
  from?: string;
  force?: boolean;
}

/** `mpsync restore`. */
export async function runRestore(ctx: CommandContext, path: string, flags: RestoreFlags): Promise<number> {
  const { mapping, rel } = await locate(ctx, path, flags.dir);
  const store = openStateStore(mapping.root);
  const { state } = await store.load();
  const copies = await listCopies(store, rel, state.files[rel]?.hash);
  const label = (c: FileCopy): string => `${c.at === undefined ? "(last synced)".padEnd(24) : new Date(c.at).toISOString().padEnd(24)} ${c.reason}`;
  if (flags.list === true) {
    const keepBackupsDays = (await ctx.runtime.config()).config.keepBackupsDays;
    const backups = { ...(await measureBackups(store.backupsDir)), keepBackupsDays };
    const listed = copies.map((c) => ({ at: c.at, reason: c.reason, file: c.file }));
    ctx.out.result("restore", { ok: true, dir: mapping.dir, path: rel, copies: listed, backups }, () => {
      if (copies.length === 0) ctx.out.info(`mpsync holds no copy of ${rel} in ${mapping.label}`);
      for (const c of copies) ctx.out.info(label(c));
      ctx.out.info(ctx.out.c.dim(`backups of ${mapping.label}: ${describeBackups(backups, keepBackupsDays)}`));
    });
    return EXIT.ok;
  }
  const target = join(mapping.root, ...rel.split("/"));
  const deleted = await stat(target).then(
    () => false,
    () => true,
  );
  const chosen = chooseCopy(copies, { deleted, from: fromTime(flags.from) });
  if (chosen === undefined) {
    throw new MpsyncError("USAGE", `no copy of ${rel} in ${mapping.label}${flags.from === undefined ? "" : ` saved at or before ${flags.from}`}`, {
      hint: `see what there is: mpsync restore ${path} --list`,
    });
  }
  const synced = copies.find((c) => c.at === undefined);
  const content = await chosen.read();
  const change = synced === undefined || chosen === synced ? undefined : restoreChange((await synced.read()).toString("utf8"), content.toString("utf8"));
  if (change !== undefined && change.removed.length > 0 && flags.force !== true) {
    const first = JSON.stringify(change.removed[0]!.trim().slice(0, 60));
    const message = `not restored: this copy of ${rel} (${label(chosen).trim()}) lacks ${lines(change.removed.length)} of the last synced version, first ${first}; the next push would take them away on the service too`;
    ctx.out.result("restore", { ok: false, dir: mapping.dir, path: rel, wouldRemove: change.removed, wouldAdd: change.added, needs: "--force" }, () => {
      ctx.out.warn(message);
      ctx.out.info(
        ctx.out.c.dim(
          `  to restore it anyway: mpsync restore ${path}${flags.dir === undefined ? "" : ` --dir ${flags.dir}`}${flags.from === undefined ? "" : ` --from ${flags.from}`} --force`,
        ),
      );
    });
    return EXIT.failure;
  }
  const stamp = recoveryStamp(ctx.runtime.clock.now());
  const savedCurrent = await backupLocalFile(mapping.root, rel, store.backupsDir, stamp);
  await mkdir(dirname(target), { recursive: true });
  await writeFileAtomically(target, content);
  const doc = { ok: true as const, dir: mapping.dir, path: rel, restored: { at: chosen.at, reason: chosen.reason }, currentBackedUpTo: savedCurrent };
  ctx.out.result("restore", doc, () => {
    ctx.out.success(`restored ${rel} in ${mapping.label}: ${label(chosen).trim()}`);
    if (savedCurrent !== undefined) ctx.out.info(ctx.out.c.dim(`  the file it replaced is in ${relative(ctx.io.cwd, savedCurrent)}`));
    ctx.out.info(ctx.out.c.dim("  mpsync watch (or the next mpsync push) sends it"));
  });
  return EXIT.ok;
}

/** `--from` as epoch ms (an ISO time or a backup folder name). */
function fromTime(from: string | undefined): number | undefined {
  if (from === undefined) return undefined;
  const limit = stampTime(from) ?? Date.parse(from);
  if (Number.isNaN(limit)) throw new MpsyncError("USAGE", `--from ${from}: not a time (use an ISO time such as 2026-11-22T15:40:00Z)`);
  return limit;
}

function lines(n: number): string {
  return `${n} line${n === 1 ? "" : "s"}`;
}

/** The mapping holding `path` and the file's name inside it. */
/** The mapping and relative path of `path` (from the current folder, or inside the mapping). */
export async function locate(ctx: CommandContext, path: string, dir: string | undefined): Promise<{ mapping: Mapping; rel: string }> {
  const abs = resolve(ctx.io.cwd, path);
  if (dir === undefined) {
    for (const m of await ctx.runtime.allMappings()) {
      const inside = relative(m.root, abs);
      if (inside !== "" && !inside.startsWith("..") && !isAbsolute(inside)) return { mapping: m, rel: checked(inside.split(sep).join("/")) };
    }
  }
  const mapping = await ctx.runtime.singleMapping(dir);
  const inside = relative(mapping.root, abs);
  const rel = inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside.split(sep).join("/") : path.replace(/^\.\//, "");
  return { mapping, rel: checked(rel) };
}

function checked(rel: string): string {
  const verdict = checkRemoteName(rel);
  if (!verdict.ok) throw new MpsyncError("USAGE", `${rel}: ${verdict.reason}`);
  return rel;
}
