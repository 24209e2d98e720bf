/**
 * `mpsync restore`'s use case: every copy mpsync holds of one file (backups, conflict sides,
 * the last synced version), and putting one back: the current file is backed up first, and a
 * copy that would take lines away from the service on the next push needs `force`.
 */
import { mkdir, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { MpsyncError } from "../core/errors.js";
import { writeFileAtomically } from "../local/atomic-write.js";
import { measureBackups, type BackupsSize } from "../local/backup-retention.js";
import { backupLocalFile } from "../local/local-fs.js";
import { checkRemoteName } from "../local/path-jail.js";
import { recoveryStamp } from "../local/recovery-layout.js";
import type { Mapping, Runtime } from "../runtime.js";
import { chooseCopy, listCopies, restoreChange, type FileCopy, type RestoreChange } from "../state/copies.js";
import { openStateStore } from "../state/state-store.js";

/** A file of a mapped folder. */
export interface LocatedFile {
  mapping: Mapping;
  /** Its name inside the folder (`/`-separated). */
  rel: string;
}

/** The mapping holding `path` (from `cwd`, or a name inside the mapping `dir`) and the file's name inside it. */
export async function locateFile(runtime: Runtime, cwd: string, path: string, dir: string | undefined): Promise<LocatedFile> {
  const abs = resolve(cwd, path);
  if (dir === undefined) {
    for (const m of await runtime.allMappings()) {
      const inside = relative(m.root, abs);
      if (inside !== "" && !inside.startsWith("..") && !isAbsolute(inside)) return { mapping: m, rel: checked(inside.split(sep).join("/")) };
    }
  }
  const mapping = await runtime.singleMapping(dir);
  const inside = relative(mapping.root, abs);
  const rel = inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside.split(sep).join("/") : path.replace(/^\.\//, "");
  return { mapping, rel: checked(rel) };
}

function checked(rel: string): string {
  const verdict = checkRemoteName(rel);
  if (!verdict.ok) throw new MpsyncError("USAGE", `${rel}: ${verdict.reason}`);
  return rel;
}

/** The copies of a file, newest first (the last synced version last), and the folder's backups. */
export async function listFileCopies(runtime: Runtime, file: LocatedFile): Promise<{ copies: FileCopy[]; backups: BackupsSize & { keepBackupsDays: number } }> {
  const store = openStateStore(file.mapping.root);
  const { state } = await store.load();
  const copies = await listCopies(store, file.rel, state.files[file.rel]?.hash);
  const keepBackupsDays = (await runtime.config()).config.keepBackupsDays;
  return { copies, backups: { ...(await measureBackups(store.backupsDir)), keepBackupsDays } };
}

/** What a restore did: put `chosen` back (the replaced file saved to `currentBackedUpTo`), or refused it. */
export type RestoreOutcome =
  { restored: true; chosen: FileCopy; currentBackedUpTo: string | undefined } | { restored: false; chosen: FileCopy; change: RestoreChange };

/**
 * Puts back the newest copy saved at or before `from` (epoch ms; the newest, or for a deleted
 * file its last copy, when undefined). Refuses, unless `force`, a copy that lacks lines of
 * the last synced version: the next push would take them away on the service too.
 */
export async function restoreFile(
  runtime: Runtime,
  file: LocatedFile,
  options: { from: number | undefined; copy?: string | undefined; force: boolean },
): Promise<RestoreOutcome | undefined> {
  const { mapping, rel } = file;
  const store = openStateStore(mapping.root);
  const { state } = await store.load();
  const copies = await listCopies(store, rel, state.files[rel]?.hash);
  const target = join(mapping.root, ...rel.split("/"));
  const deleted = await stat(target).then(
    () => false,
    () => true,
  );
  const chosen = chooseCopy(copies, { deleted, from: options.from, copy: options.copy });
  if (chosen === undefined) return undefined;
  const synced = copies.find((c) => c.at === undefined);
  const content = await chosen.read();
  const change = synced === undefined || chosen === synced ? undefined : restoreChange((await synced.read()).toString("utf8"), content.toString("utf8"));
  if (change !== undefined && change.removed.length > 0 && !options.force) return { restored: false, chosen, change };
  const stamp = recoveryStamp(runtime.clock.now());
  const currentBackedUpTo = await backupLocalFile(mapping.root, rel, store.backupsDir, stamp);
  await mkdir(dirname(target), { recursive: true });
  await writeFileAtomically(target, content);
  return { restored: true, chosen, currentBackedUpTo };
}
