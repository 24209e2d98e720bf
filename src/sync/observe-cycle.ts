/**
 * Observing a cycle: what the local folder and the service hold, as values. The local side is
 * read BEFORE the remote, so a save during a cycle is never taken for a remote change. A full
 * pass looks at every path (or a content check's slice); a push pass at the paths that changed
 * locally, each read twice. Nothing here writes: the cycle (cycle.ts) journals and acts.
 */
import { mapBounded } from "../local/bounded.js";
import { folderPrefixes } from "../local/path-jail.js";
import type { BaseLedger, LandedPush, OpenPush } from "./base-ledger.js";
import type { CycleContext, CycleProgress } from "./cycle-context.js";
import type { LocalFile } from "./model.js";
import type { BaseTexts } from "./ports.js";
import { editBaseHash, type EditTexts } from "./races.js";
import { readRemoteSnapshot, type RemoteHint, type RemoteSnapshot } from "./remote-snapshot.js";

/** Local files read at once by a cycle (a push of thousands of files is bound by file-system latency). */
export const LOCAL_READ_CONCURRENCY = 16;

/** Options of DesignSync.fullSync. */
export interface FullSyncOptions {
  force?: boolean;
  dryRun?: boolean;
  /** `mpsync pull`: nothing is sent (see DesignSync.fullSync). */
  pullOnly?: boolean;
  progress?: CycleProgress;
  /** A remote read already under way (readRemote()), e.g. started while the watcher got ready. */
  remote?: Promise<RemoteSnapshot>;
  /** The active version as a status answer just named it: no active-artifact call (RemoteHint). */
  active?: { artifactId: string; files: string[] };
}

/** Options of DesignSync.pushPaths. */
export interface PushOptions {
  dryRun?: boolean;
  /**
   * What a scan by this same command just read at some of the paths (localChangeSet): taken
   * as the first of the push's two reads, so `mpsync push` reads each file twice, not three
   * times. The read of the text sent must still hash alike.
   */
  seen?: ReadonlyMap<string, LocalFile | undefined>;
  /** Look at every path, also those equal to their base (a read-back found them replaced). */
  verify?: boolean;
}

/** A local text read for sending, with its hash. */
export interface ReadText {
  hash: string;
  text: string;
}

/** What a full pass observed. */
export interface FullObservation {
  /** The mapped folder exists. */
  exists: boolean;
  scan: ReadonlyMap<string, LocalFile>;
  remote: RemoteSnapshot;
  /** Monotonic time the remote read was sent. */
  readAt: number;
  /** The paths the plan judges. */
  paths: Set<string>;
}

/**
 * What a push pass found on its side before reading the remote. `needs-full`: a changed path is
 * gone and so is the folder (or every file in it): only a full pass's breakers judge that.
 */
export type PushLocal =
  | { kind: "unchanged" }
  | { kind: "needs-full"; why: "folder-gone"; changed: string[] }
  | { kind: "changed"; changed: string[]; locals: Map<string, LocalFile | undefined>; toSend: Map<string, ReadText> | undefined };

/** What a push pass's remote read found. `needs-full`: the active version moved since the last cycle. */
export type PushRemote = { kind: "needs-full"; why: "version-moved"; artifactId: string } | { kind: "read"; remote: RemoteSnapshot; readAt: number };

/**
 * The version a status answer named, when its file list may stand in for the active-artifact
 * call: only while it names every synced file. A missing name would read as a remote deletion,
 * and the list may predate our own push of that name (docs/service-facts.md#status does not
 * promise it equals the artifact's list either). Otherwise (undefined) the version is asked for.
 */
export function listedVersion(
  ledger: Pick<BaseLedger, "paths">,
  named: { artifactId: string; files: string[] } | undefined,
): { artifactId: string; files: string[] } | undefined {
  if (named === undefined) return undefined;
  const listed = new Set(named.files);
  return ledger.paths().every((p) => listed.has(p)) ? named : undefined;
}

/**
 * Reads the whole remote side (active artifact and every text). A rejection is marked handled
 * here: whoever awaits the promise gets the error.
 */
export function readWholeRemote(ctx: CycleContext, hint: RemoteHint = {}): Promise<RemoteSnapshot> {
  const read = readRemoteSnapshot(ctx.options.client, ctx.editorId, undefined, hint);
  read.catch(() => undefined);
  return read;
}

/** A full pass: every path, or with `scope` a content check's slice (`scanned`: its scan). */
export async function observeFull(
  ctx: CycleContext,
  options: FullSyncOptions,
  scope?: ReadonlySet<string>,
  scanned?: Map<string, LocalFile>,
): Promise<FullObservation> {
  const { options: o, ledger } = ctx;
  const active = listedVersion(ledger, options.active);
  // Read in a content check: its scope, and remote names with no base (new remote files).
  const wanted = scope === undefined ? undefined : (p: string): boolean => scope.has(p) || ledger.baseOf(p) === undefined;
  // The remote read (mostly waiting on the network) runs while the local scan (mostly this
  // thread) does: neither depends on the other, and the plan only needs both.
  const hint = active === undefined ? {} : { active };
  const readAt = o.clock.monotonic();
  const remoteRead =
    options.remote ??
    (wanted === undefined ? readWholeRemote(ctx, hint) : readRemoteSnapshot(o.client, ctx.editorId, (names) => [...names].filter(wanted), hint));
  const exists = scanned !== undefined || (await o.local.exists());
  const scan = scanned ?? (exists ? await o.local.scan() : new Map<string, LocalFile>());
  const remote = await remoteRead;
  const paths =
    wanted === undefined
      ? new Set([...ledger.paths(), ...scan.keys(), ...remote.names])
      : new Set([
          ...ledger.paths().filter((p) => wanted(p) || !remote.names.has(p)),
          ...[...remote.names].filter(wanted),
          ...[...scan.keys()].filter((p) => scope!.has(p)),
        ]);
  return { exists, scan, remote, readAt, paths };
}

/**
 * A push pass's local side: the paths of `paths` that differ from their base (all of them with
 * `verify`), then, unless a dry run, a second read of the texts it may send. Only hashes are
 * kept from the first read: a file is sent only when both reads agree, so a file caught
 * half-written (an editor truncates, then writes) is not sent until it settles.
 */
export async function observePushLocal(ctx: CycleContext, paths: Iterable<string>, options: PushOptions): Promise<PushLocal> {
  const { options: o, ledger } = ctx;
  const locals = new Map<string, LocalFile | undefined>();
  // A scan this same command just made (`seen`) is the first read of the paths it holds.
  const { seen } = options;
  const wanted = [...expandPaths(paths, ledger.paths(), (p) => o.local.ignores(p))];
  await mapBounded(wanted, LOCAL_READ_CONCURRENCY, async (p) => {
    const read = seen?.has(p) === true ? seen.get(p) : await o.local.read(p);
    if (options.verify === true || read?.hash !== ledger.baseOf(p))
      locals.set(p, read && { hash: read.hash, binary: read.binary, hasMarkers: read.hasMarkers });
  });
  if (locals.size === 0) return { kind: "unchanged" };
  const changed = [...locals.keys()];
  if ([...locals.values()].some((l) => l === undefined) && (await folderGone(ctx))) return { kind: "needs-full", why: "folder-gone", changed };
  const toSend = options.dryRun === true ? undefined : await readAgain(ctx, locals);
  return { kind: "changed", changed, locals, toSend };
}

/**
 * A push pass's remote side: the texts of its paths, read from the version the last cycle saw
 * beside the active-artifact call (one round trip instead of two before the PATCH).
 */
export async function observePushRemote(ctx: CycleContext, paths: readonly string[]): Promise<PushRemote> {
  const { options: o, status } = ctx;
  const readAt = o.clock.monotonic();
  const remote = await readRemoteSnapshot(o.client, ctx.editorId, () => [...paths], { artifactId: status.artifactId });
  // A moved version (a generation, another version picked) is pulled and reconciled as a whole first.
  if (status.artifactId !== undefined && remote.artifactId !== status.artifactId)
    return { kind: "needs-full", why: "version-moved", artifactId: remote.artifactId };
  return { kind: "read", remote, readAt };
}

/**
 * The second read of a push pass's changed files (the first found them changed): a text whose
 * hash differs is still being written and is left out.
 */
async function readAgain(ctx: CycleContext, changed: ReadonlyMap<string, LocalFile | undefined>): Promise<Map<string, ReadText>> {
  const { options: o, ledger } = ctx;
  const wanted = [...changed].flatMap(([path, l]) =>
    l === undefined || l.binary || l.hasMarkers || l.hash === ledger.baseOf(path) ? [] : [{ path, hash: l.hash }],
  );
  const reads = await mapBounded(wanted, LOCAL_READ_CONCURRENCY, (w) => o.local.read(w.path));
  const out = new Map<string, ReadText>();
  for (const [i, w] of wanted.entries()) {
    const read = reads[i];
    if (read?.text !== undefined && read.hash === w.hash) out.set(w.path, { hash: w.hash, text: read.text });
  }
  return out;
}

/**
 * The stored texts the writers' judge needs for the open PATCHes a remote text may have
 * replaced (races.ts): what each sent, and what its edit was made on. A missing one stays
 * missing: the judge then keeps the path's base.
 */
export async function readEditTexts(bases: BaseTexts, contested: ReadonlyMap<string, OpenPush>): Promise<EditTexts> {
  const hashes = new Set<string>();
  for (const open of contested.values()) {
    if (open.landed === undefined) continue;
    hashes.add(open.landed.hash);
    const before = editBaseHash(open.landed);
    if (before !== null) hashes.add(before);
  }
  const texts = new Map<string, string>();
  await mapBounded([...hashes], LOCAL_READ_CONCURRENCY, async (h) => {
    const text = await bases.getBase(h);
    if (text !== undefined) texts.set(h, text);
  });
  return texts;
}

/** The text a landed push's edit was made on (editBaseHash), read from the store; "" for a new file. */
export async function editBase(landed: LandedPush, bases: BaseTexts): Promise<string | undefined> {
  const hash = editBaseHash(landed);
  return hash === null ? "" : bases.getBase(hash);
}

/** The paths of `scan` (and the synced paths it lacks) that differ from their base, sorted. */
export function changesIn(ledger: Pick<BaseLedger, "baseOf" | "paths">, scan: ReadonlyMap<string, LocalFile>): Map<string, LocalFile | undefined> {
  const changed = new Map<string, LocalFile | undefined>();
  for (const [p, f] of scan) if (ledger.baseOf(p) !== f.hash) changed.set(p, { hash: f.hash, binary: f.binary, hasMarkers: f.hasMarkers });
  for (const p of ledger.paths()) if (!scan.has(p)) changed.set(p, undefined);
  return new Map([...changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function folderGone(ctx: CycleContext): Promise<boolean> {
  const { local } = ctx.options;
  return !(await local.exists()) || (await local.scan()).size === 0;
}

/**
 * The paths a push pass looks at: each changed path (ignored ones dropped), and for a removed or
 * renamed folder every synced file below it.
 */
export function expandPaths(paths: Iterable<string>, known: readonly string[], ignores: (path: string) => boolean): Set<string> {
  const out = new Set<string>();
  let under: Map<string, string[]> | undefined;
  for (const raw of paths) {
    const p = raw.replace(/\/+$/, "");
    if (p === "" || ignores(p)) continue;
    out.add(p);
    // Indexed once per call: a batch as large as the design must not scan every known path per path.
    under ??= pathsByFolder(known);
    for (const k of under.get(p) ?? []) out.add(k);
  }
  return out;
}

/** Folder -> every path below it, at any depth (`a` -> `a/b.ts`, `a/c/d.ts`). */
function pathsByFolder(paths: readonly string[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const path of paths) {
    for (const folder of folderPrefixes(path)) {
      const list = index.get(folder);
      if (list === undefined) index.set(folder, [path]);
      else list.push(path);
    }
  }
  return index;
}
