/** `mpsync restore PATH`: list every copy mpsync holds of a file, and put one back (src/app/restore-file.ts). */
import { relative, resolve } from "node:path";
import { listFileCopies, locateFile, restoreFile } from "../../app/restore-file.js";
import { MpsyncError } from "../../core/errors.js";
import { quoteLine } from "../../core/quote-line.js";
import { describeBackups } from "../../local/backup-retention.js";
import { stampTime } from "../../local/recovery-layout.js";
import type { FileCopy } from "../../state/copies.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";

interface RestoreFlags {
  dir?: string;
  list?: boolean;
  from?: string;
  copy?: string;
  force?: boolean;
}

/** `mpsync restore`. */
export async function runRestore(ctx: CommandContext, path: string, flags: RestoreFlags): Promise<number> {
  const file = await locateFile(ctx.runtime, ctx.io.cwd, path, flags.dir);
  const { mapping, rel } = file;
  // A column of the list; a sentence names a copy by `copyInSentence`.
  const label = (c: FileCopy): string => `${c.at === undefined ? "(last synced)".padEnd(24) : new Date(c.at).toISOString().padEnd(24)} ${c.reason}`;
  if (flags.list === true) {
    const { copies, backups } = await listFileCopies(ctx.runtime, file);
    const listed = copies.map((c) => ({ at: c.at, reason: c.reason, file: c.file }));
    ctx.out.result("restore", { ok: true, dir: mapping.dir, path: rel, copies: listed, backups }, () => {
      if (copies.length === 0) ctx.out.info(`mpsync holds no copy of ${rel} in ${mapping.label}`);
      for (const c of copies) ctx.out.info(label(c));
      ctx.out.info(ctx.out.c.dim(`backups of ${mapping.label}: ${describeBackups(backups, backups.keepBackupsDays)}`));
    });
    return EXIT.ok;
  }
  // A copy is named as --list --json gives its file (absolute), or from here.
  const copy = flags.copy === undefined ? undefined : resolve(ctx.io.cwd, flags.copy);
  const outcome = await restoreFile(ctx.runtime, file, { from: fromTime(flags.from), copy, force: flags.force === true });
  if (outcome === undefined) {
    const which = copy !== undefined ? ` named ${flags.copy}` : flags.from === undefined ? "" : ` saved at or before ${flags.from}`;
    throw new MpsyncError("USAGE", `no copy of ${rel} in ${mapping.label}${which}`, {
      hint: `see what there is: mpsync restore ${path} --list`,
    });
  }
  if (!outcome.restored) {
    const { change, chosen } = outcome;
    const first = quoteLine(change.removed[0]!);
    const message = `not restored: this copy of ${rel} (${copyInSentence(chosen)}) lacks ${lines(change.removed.length)} of the last synced version, first ${first}; the next push would take them away on the service too`;
    ctx.out.result("restore", { ok: false, dir: mapping.dir, path: rel, wouldRemove: change.removed, wouldAdd: change.added, needs: "--force" }, () => {
      ctx.out.warn(message);
      ctx.out.info(
        ctx.out.c.dim(
          `  to restore it anyway: mpsync restore ${path}${flags.dir === undefined ? "" : ` --dir ${flags.dir}`}${flags.from === undefined ? "" : ` --from ${flags.from}`}${flags.copy === undefined ? "" : ` --copy ${flags.copy}`} --force`,
        ),
      );
    });
    return EXIT.failure;
  }
  const { chosen, currentBackedUpTo } = outcome;
  const doc = { ok: true as const, dir: mapping.dir, path: rel, restored: { at: chosen.at, reason: chosen.reason }, currentBackedUpTo };
  ctx.out.result("restore", doc, () => {
    ctx.out.success(`restored ${rel} in ${mapping.label} (${copyInSentence(chosen)})`);
    if (currentBackedUpTo !== undefined) ctx.out.info(ctx.out.c.dim(`  the file it replaced is in ${relative(ctx.io.cwd, currentBackedUpTo)}`));
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

/** "backup: replaced or removed by sync, saved 2026-11-22T15:40:00.000Z"; the last synced version as its reason says. */
function copyInSentence(c: FileCopy): string {
  return c.at === undefined ? c.reason : `${c.reason}, saved ${new Date(c.at).toISOString()}`;
}

function lines(n: number): string {
  return `${n} line${n === 1 ? "" : "s"}`;
}
