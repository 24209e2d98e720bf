/**
 * Planning a cycle: which paths it looks at, the reads of both sides (the local side BEFORE
 * the remote, so a save during a cycle is never taken for a remote change), the triples and
 * the pure reconcile. A full pass looks at every path (or a content check's slice); a push
 * pass at the paths that changed locally. Both hand their plan to run-plan.ts `commitCycle`.
 */
import { mapBounded } from "../local/bounded.js";
import { localNameJudge } from "../local/path-jail.js";
import type { BaseLedger } from "./base-ledger.js";
import type { CycleContext, CycleProgress, CycleReport } from "./cycle-context.js";
import { buildTriples, expandPaths, LOCAL_READ_CONCURRENCY, readToSend, type Triples } from "./cycle-io.js";
import type { LocalFile } from "./model.js";
import { judgeWriters } from "./races.js";
import { reconcile } from "./reconcile.js";
import { readRemoteSnapshot, type RemoteHint, type RemoteSnapshot } from "./remote-snapshot.js";
import { commitCycle } from "./run-plan.js";

/** Options of DesignSync.fullSync. */
export interface FullSyncOptions {
  force?: boolean;
  dryRun?: boolean;
  /** `mpsync pull`: nothing is sent (see fullSync). */
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

/**
 * The version a status answer named, when its file list may stand in for the active-artifact
 * call: only while it names every synced file. A missing name would read as a remote deletion,
 * and the list may predate our own push of that name (docs/service-facts.md#status does not
 * promise it equals the artifact's list either). Otherwise (undefined) the version is asked for.
 */
export function listedVersion(
  ledger: BaseLedger,
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
export async function planFull(
  ctx: CycleContext,
  options: FullSyncOptions,
  scope?: ReadonlySet<string>,
  scanned?: Map<string, LocalFile>,
): Promise<CycleReport> {
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
  const { files, reading, refusedLocalMoved } = triplesOf(ctx, paths, (p) => scan.get(p), remote, readAt);
  const writers = await judgeWriters(files, reading.judged, remote, o.store, readAt);
  const plan = reconcile({
    files,
    policy: o.policy,
    force: options.force === true,
    restoreDeleted: options.force === true,
    // A folder that never held synced files did not vanish: the first pull creates it.
    folderExists: exists || ledger.paths().length === 0,
    fullRemote: true,
    // Refused names count: an artifact of only hostile names is not "empty".
    remoteFileCount: remote.listed.length,
    // A content check judges a slice: the breakers still count the whole folder.
    ...(scope === undefined ? {} : { localFileCount: scan.size }),
  });
  if (options.pullOnly === true) plan.actions = plan.actions.map((a) => (a.kind === "push" ? { kind: "report", path: a.path, reason: "waiting-to-push" } : a));
  const report = await commitCycle(ctx, {
    plan,
    remote,
    reading,
    refusedLocalMoved,
    writers,
    dryRun: options.dryRun === true,
    send: options.pullOnly !== true,
    progress: options.progress,
  });
  report.wholeFolder = true;
  return report;
}

/**
 * A push pass over `paths` (changed locally). Undefined when none of them differs from its
 * base: no request at all, which is how the tool's own writes never echo.
 */
export async function planPush(ctx: CycleContext, paths: Iterable<string>, options: PushOptions): Promise<CycleReport | undefined> {
  const { options: o, ledger, status } = ctx;
  const locals = new Map<string, LocalFile | undefined>();
  // Only hashes are kept: the cycle reads the texts it sends again and sends a file only when
  // both reads agree, so a file caught half-written (an editor truncates, then writes) is not
  // sent until it settles. Reading once lost that check: an empty file went out (a CI run).
  // A scan this same command just made (`seen`) is the first read of the paths it holds.
  const { seen } = options;
  const wanted = [...expandPaths(paths, ledger.paths(), (p) => o.local.ignores(p))];
  await mapBounded(wanted, LOCAL_READ_CONCURRENCY, async (p) => {
    const read = seen?.has(p) === true ? seen.get(p) : await o.local.read(p);
    if (options.verify === true || read?.hash !== ledger.baseOf(p))
      locals.set(p, read && { hash: read.hash, binary: read.binary, hasMarkers: read.hasMarkers });
  });
  if (locals.size === 0) return undefined;
  ctx.scope.touch([...locals.keys()], o.clock.monotonic());
  if ([...locals.values()].some((l) => l === undefined) && (await folderGone(ctx))) {
    // The folder vanished or was emptied: only the full cycle's breakers judge that.
    return planFull(ctx, options);
  }
  const toSend = options.dryRun === true ? undefined : await readToSend(o.local, o.store, ledger, locals);
  // The texts are read from the version the last cycle saw, beside the active-artifact call:
  // one round trip instead of two before the PATCH (a moved version reads again, then pulls).
  const readAt = o.clock.monotonic();
  const remote = await readRemoteSnapshot(o.client, ctx.editorId, () => [...locals.keys()], { artifactId: status.artifactId });
  if (status.artifactId !== undefined && remote.artifactId !== status.artifactId) {
    // The active artifact moved (generation, or another version picked): pull and
    // reconcile everything first; the local edits are part of that reconcile.
    ctx.notice(`active artifact changed to ${remote.artifactId}: pulling before pushing`);
    return planFull(ctx, options);
  }
  const { files, reading, refusedLocalMoved } = triplesOf(ctx, new Set(locals.keys()), (p) => locals.get(p), remote, readAt);
  const writers = await judgeWriters(files, reading.judged, remote, o.store, readAt);
  const plan = reconcile({ files, policy: o.policy, force: false, folderExists: true, fullRemote: false });
  return commitCycle(ctx, { plan, remote, reading, refusedLocalMoved, writers, dryRun: options.dryRun === true, send: true, preread: toSend });
}

/** The paths of `scan` (and the synced paths it lacks) that differ from their base, sorted. */
export function changesIn(ledger: BaseLedger, scan: ReadonlyMap<string, LocalFile>): Map<string, LocalFile | undefined> {
  const changed = new Map<string, LocalFile | undefined>();
  for (const [p, f] of scan) if (ledger.baseOf(p) !== f.hash) changed.set(p, { hash: f.hash, binary: f.binary, hasMarkers: f.hasMarkers });
  for (const p of ledger.paths()) if (!scan.has(p)) changed.set(p, undefined);
  return new Map([...changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The triples of `paths` (cycle-io.ts buildTriples), and what it found applied: local-name
 * verdicts go to the folder status, notices are given; the ledger's reading goes with the plan.
 */
function triplesOf(
  ctx: CycleContext,
  paths: Set<string>,
  localOf: (p: string) => LocalFile | undefined,
  remote: RemoteSnapshot,
  readAt: number,
): Triples & { refusedLocalMoved: boolean } {
  const { ledger, status } = ctx;
  const triples = buildTriples(paths, localOf, remote, readAt, {
    ledger,
    ignores: (p) => ctx.options.local.ignores(p),
    refusedLocalOf: (p) => status.refusedLocalOf(p),
    judgeName: (r) => localNameJudge(r.listed),
  });
  const refusedLocalMoved = status.noteLocalNames(triples.localNames);
  for (const n of triples.notices) ctx.notice(n);
  return { ...triples, refusedLocalMoved };
}

async function folderGone(ctx: CycleContext): Promise<boolean> {
  const { local } = ctx.options;
  return !(await local.exists()) || (await local.scan()).size === 0;
}
