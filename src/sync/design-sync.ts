/**
 * One mapped folder <-> one design. Runs sync cycles: a full cycle (pull: every path on both
 * sides) and a push pass (only the paths that changed locally). Both read the local side
 * BEFORE the remote, so a save during a cycle is never taken for a remote change, and both
 * go through the same pure reconcile and the same executor.
 */
import type { V3Client } from "../api/client-types.js";
import type { Logger } from "../log/logger.js";
import type { Clock } from "../core/clock.js";
import type { EventSink } from "./events.js";
import type { ExecuteResult } from "./executor.js";
import type { ConflictPolicy, LocalFile, SyncPlan } from "./model.js";
import { describeHalt } from "./model.js";
import type { LocalTree } from "./ports.js";
import { reconcile } from "./reconcile.js";
import { readRemoteSnapshot, type RemoteHint, type RemoteSnapshot } from "./remote-snapshot.js";
import type { DesignStore, PersistedState } from "./ports.js";
import { FolderStatus } from "./folder-status.js";
import { DaemonRecord } from "./daemon-record.js";
import type { DeepReadonly } from "../core/deep-readonly.js";
import { resolveEditorId } from "./resolve-design.js";
import { SaidOnce } from "./said-once.js";
import { BaseLedger } from "./base-ledger.js";
import { rebaseRaces } from "./races.js";
import { CheckScope } from "./check-scope.js";
import { readBackPushed } from "./read-back.js";
import { runPlan, type CycleProgress, type PlanRunContext } from "./run-plan.js";
import {
  buildTriples,
  expandPaths,
  LOCAL_READ_CONCURRENCY,
  readToSend,
  type ReadText,
  type Triples,
} from "./cycle-io.js";
import { mapBounded } from "../local/bounded.js";
import { localNameJudge } from "../local/path-jail.js";
import { MpsyncError } from "../core/errors.js";
import type { IgnoreMatcher } from "../local/ignore-rules.js";

/** Everything one design's sync needs, wired by the composition root. */
export interface DesignSyncOptions {
  /** The mapping's folder as written in .syncrc (for messages and events). */
  dir: string;
  /** The mapping's design string (editorId or URL). */
  design: string;
  client: V3Client;
  local: LocalTree;
  /** The folder's ignore rules (the watcher uses the same ones). */
  matcher: IgnoreMatcher;
  store: DesignStore;
  policy: ConflictPolicy;
  logger: Logger;
  emit: EventSink;
  clock: Clock;
  /**
   * True while pushes must wait (a git operation holds the repository): checked just before
   * the PATCH, so a cycle that began before git took its lock does not push half its work.
   */
  holdPushes?: () => boolean;
}

export type { CycleProgress } from "./run-plan.js";

/** What a cycle did (or, with dryRun, would do). */
export interface CycleReport {
  plan: SyncPlan;
  dryRun: boolean;
  result: ExecuteResult | undefined;
  artifactId: string;
  /** Every name the active artifact listed (to notice a change in later status polls). */
  remoteNames: string[];
  refusedNames: { name: string; reason: string }[];
  /** A full sync: every local and remote file was compared (a push pass compares only its paths). */
  wholeFolder?: boolean;
}

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

/** A folder's state as everything outside its owners sees it: read-only. */
export type FolderStateView = DeepReadonly<PersistedState & { lastStatus: DaemonRecord["lastStatus"]; lastError: DaemonRecord["lastError"] }>;

/** Rounds of read-back and re-apply after one push, so two clients cannot ping-pong for ever. */
const MAX_REAPPLY_ROUNDS = 2;

/** Sync of one folder with one design. Cycles must not overlap (the caller serializes). */
export class DesignSync {
  readonly #o: DesignSyncOptions;
  #editorId: string | undefined;
  /** What the design string resolved to, as state.json caches it, and fields a newer release wrote. */
  #identity: Pick<PersistedState, "editorId" | "sourceDesign"> & Record<string, unknown> = {};
  #status!: FolderStatus;
  #daemon!: DaemonRecord;
  /** A halt or a path failure is said when it begins and when it ends, not every cycle. */
  readonly #said = new SaidOnce();
  #ledger!: BaseLedger;
  /** The files a content check reads (check-scope.ts). */
  readonly #scope = new CheckScope();
  /** Labels of the versions conflicts were marked against (run-plan.ts). */
  readonly #labels = new Map<string, Promise<string>>();
  /** The refused local names moved this cycle: state.json must be saved (status reads them). */
  #refusedLocalChanged = false;

  constructor(options: DesignSyncOptions) {
    this.#o = options;
  }

  /** The design's editorId (after open). */
  get editorId(): string {
    if (this.#editorId === undefined) throw new MpsyncError("INTERNAL", "DesignSync used before open()");
    return this.#editorId;
  }

  /** The mapping's folder as written in .syncrc. */
  get dir(): string {
    return this.#o.dir;
  }

  /** The folder's ignore rules. */
  get matcher(): IgnoreMatcher {
    return this.#o.matcher;
  }

  /** What the last scan left out of sync, and why (symlinks, special files). */
  get skipped(): { path: string; reason: string }[] {
    return this.#o.local.skipped?.() ?? [];
  }

  /** The persisted state (after open), read-only: each part is written by its owner. */
  get state(): FolderStateView {
    this.#opened();
    return { ...this.#identity, ...this.#status.data, ...this.#ledger.data, lastStatus: this.#daemon.lastStatus, lastError: this.#daemon.lastError };
  }

  /** The folder's artifact, halt and refusals (after open). */
  get status(): FolderStatus {
    this.#opened();
    return this.#status;
  }

  /** The daemon's last status and error, saved to daemon.json (after open). */
  get daemon(): DaemonRecord {
    this.#opened();
    return this.#daemon;
  }

  #opened(): void {
    if (this.#editorId === undefined) throw new MpsyncError("INTERNAL", "DesignSync used before open()");
  }

  /**
   * Loads state and resolves the design to an editorId (cached in state). `holdsLock`: the
   * caller holds the folder lock, so leftovers of a killed process may be cleaned up.
   */
  async open(options: { holdsLock?: boolean } = {}): Promise<void> {
    if (options.holdsLock === true) {
      const removed = (await this.#o.local.removeStaleTemps?.()) ?? [];
      if (removed.length > 0) {
        const names = `${removed.slice(0, 3).join(", ")}${removed.length > 3 ? `, and ${removed.length - 3} more` : ""}`;
        this.#o.logger.info(`removed ${removed.length === 1 ? "a temp file" : `${removed.length} temp files`} an interrupted write left: ${names}`);
      }
    }
    const { state, daemon, recovered } = await this.#o.store.load();
    if (recovered === "corrupt") {
      this.#notice("state.json was corrupt: it was set aside; differing files will become conflicts");
    }
    const editorId = await resolveEditorId(this.#o.client, this.#o.design, state);
    const { files, pending, pendingPush, landed, artifactId, halted, refusedContent, refusedLocal, ...identity } = state;
    // The journals are saved without a flush: they sit between a read and the write it decided
    // (README, known limits: the window); the cycle's flush makes them durable with the files.
    this.#ledger = new BaseLedger({ files, pending, pendingPush, landed }, () => this.#saveState({ durable: false }), () => this.#o.clock.now());
    this.#status = new FolderStatus({ artifactId, halted, refusedContent, refusedLocal });
    this.#daemon = new DaemonRecord(daemon, (record) => this.#o.store.saveDaemon(record));
    if (state.editorId !== undefined && state.editorId !== editorId) {
      // The mapping now points at another design: the old bases describe nothing shared.
      this.#notice(`mapping changed from ${state.editorId} to ${editorId}: starting without a base`);
      this.#ledger.reset();
      this.#status.forgetArtifact();
    }
    this.#identity = { ...identity, editorId, sourceDesign: this.#o.design };
    this.#editorId = editorId;
  }

  /**
   * A full cycle over every path. `pullOnly` (`mpsync pull`): nothing is sent; local changes are
   * reported as waiting to be pushed, and a merge is written locally for the next push to send.
   */
  async fullSync(options: FullSyncOptions = {}): Promise<CycleReport> {
    return this.#confirmed(await this.#fullPass(options));
  }

  /**
   * The daemon's content check (check-scope.ts): the files changed on either side in the last
   * hour and the next slice of the others, each reconciled as a full cycle would; every remote
   * name the active version lists is known, so new and vanished remote files are judged too.
   */
  async checkRemote(options: { active?: { artifactId: string; files: string[] } } = {}): Promise<CycleReport> {
    const scope = this.#scope.next(this.#ledger.paths(), this.#o.clock.monotonic());
    // Every local change is in scope too (the check's one scan, mostly cached stats): a save
    // whose push was lost on the way (a watcher that missed it, a failed cycle) still goes out,
    // as it did when every check was a full sync.
    const scan = (await this.#o.local.exists()) ? await this.#o.local.scan() : undefined;
    if (scan !== undefined) for (const p of this.#changesIn(scan).keys()) scope.add(p);
    return this.#confirmed(await this.#fullPass(options, scope, scan));
  }

  async #fullPass(options: FullSyncOptions, scope?: ReadonlySet<string>, scanned?: Map<string, LocalFile>): Promise<CycleReport> {
    // A file list from a status answer stands in for the active-artifact call only while it
    // names every synced file: a missing name would read as a remote deletion, and the list may
    // predate our own push of that name (SERVICE-FACTS does not promise it equals the
    // artifact's list either). Otherwise the version is asked for.
    const listed = options.active === undefined ? undefined : new Set(options.active.files);
    const active = listed !== undefined && this.#ledger.paths().every((p) => listed.has(p)) ? options.active : undefined;
    // Read in a content check: its scope, and remote names with no base (new remote files).
    const wanted = scope === undefined ? undefined : (p: string): boolean => scope.has(p) || this.#ledger.baseOf(p) === undefined;
    // The remote read (mostly waiting on the network) runs while the local scan (mostly this
    // thread) does: neither depends on the other, and the plan only needs both.
    const remoteRead =
      options.remote ??
      (wanted === undefined
        ? this.readRemote(active === undefined ? {} : { active })
        : readRemoteSnapshot(this.#o.client, this.editorId, (names) => [...names].filter(wanted), active === undefined ? {} : { active }));
    const exists = scanned !== undefined || (await this.#o.local.exists());
    const scan = scanned ?? (exists ? await this.#o.local.scan() : new Map<string, LocalFile>());
    const remote = await remoteRead;
    const paths =
      wanted === undefined
        ? new Set([...this.#ledger.paths(), ...scan.keys(), ...remote.names])
        : new Set([...this.#ledger.paths().filter((p) => wanted(p) || !remote.names.has(p)), ...[...remote.names].filter(wanted), ...[...scan.keys()].filter((p) => scope!.has(p))]);
    const { files } = this.#triples(paths, (p) => scan.get(p), remote);
    const raced = await rebaseRaces(files, this.#ledger, remote.texts, this.#o.store);
    const plan = reconcile({
      files,
      policy: this.#o.policy,
      force: options.force === true,
      restoreDeleted: options.force === true,
      // A folder that never held synced files did not vanish: the first pull creates it.
      folderExists: exists || this.#ledger.paths().length === 0,
      fullRemote: true,
      // Refused names count: an artifact of only hostile names is not "empty".
      remoteFileCount: remote.listed.length,
      // A content check judges a slice: the breakers still count the whole folder.
      ...(scope === undefined ? {} : { localFileCount: scan.size }),
    });
    if (options.pullOnly === true) plan.actions = plan.actions.map((a) => (a.kind === "push" ? { kind: "report", path: a.path, reason: "waiting-to-push" } : a));
    const report = await this.#finish(plan, remote, raced, options.dryRun === true, options.pullOnly !== true, options.progress);
    report.wholeFolder = true;
    return report;
  }

  /**
   * Reads the whole remote side (active artifact and every text), for fullSync's `remote`. A
   * rejection is marked handled here: whoever awaits the promise gets the error.
   */
  readRemote(hint: RemoteHint = {}): Promise<RemoteSnapshot> {
    const read = readRemoteSnapshot(this.#o.client, this.editorId, undefined, hint);
    read.catch(() => undefined);
    return read;
  }

  /**
   * Push pass over `paths` (changed locally, from the watcher or a scan). Makes no request at
   * all when none of them differs from its base: that is how the tool's own writes never echo.
   */
  async pushPaths(paths: Iterable<string>, options: PushOptions = {}): Promise<CycleReport | undefined> {
    const report = await this.#pushPass(paths, options);
    return report === undefined ? undefined : this.#confirmed(report);
  }

  /**
   * Reads back what a cycle pushed (read-back.ts); a path another writer replaced meanwhile is
   * reconciled again from what our PATCH replaced (races.ts): merged and pushed, or marked.
   */
  async #confirmed(report: CycleReport): Promise<CycleReport> {
    let last = report;
    for (let round = 0; round < MAX_REAPPLY_ROUNDS; round += 1) {
      if (last.dryRun || last.result === undefined) break;
      const raced = await readBackPushed(this.#o.client, this.editorId, last.artifactId, last.result);
      if (raced.length === 0) break;
      const again = await this.#pushPass(raced, { verify: true });
      if (again === undefined) break;
      last = again;
    }
    return report;
  }

  async #pushPass(paths: Iterable<string>, options: PushOptions): Promise<CycleReport | undefined> {
    const locals = new Map<string, LocalFile | undefined>();
    // Only hashes are kept: the cycle reads the texts it sends again and sends a file only when
    // both reads agree, so a file caught half-written (an editor truncates, then writes) is not
    // sent until it settles. Reading once lost that check: an empty file went out (a CI run).
    // A scan this same command just made (`seen`) is the first read of the paths it holds.
    const { seen } = options;
    const wanted = [...expandPaths(paths, this.#ledger.paths(), (p) => this.#o.local.ignores(p))];
    await mapBounded(wanted, LOCAL_READ_CONCURRENCY, async (p) => {
      const read = seen?.has(p) === true ? seen.get(p) : await this.#o.local.read(p);
      if (options.verify === true || read?.hash !== this.#ledger.baseOf(p)) locals.set(p, read && { hash: read.hash, binary: read.binary, hasMarkers: read.hasMarkers });
    });
    if (locals.size === 0) return undefined;
    this.#scope.touch([...locals.keys()], this.#o.clock.monotonic());
    if ([...locals.values()].some((l) => l === undefined) && (await this.#folderGone())) {
      // The folder vanished or was emptied: only the full cycle's breakers judge that.
      return this.#fullPass(options);
    }
    const toSend = options.dryRun === true ? undefined : await readToSend(this.#o.local, this.#o.store, this.#ledger, locals);
    // The texts are read from the version the last cycle saw, beside the active-artifact call:
    // one round trip instead of two before the PATCH (a moved version reads again, then pulls).
    const remote = await readRemoteSnapshot(this.#o.client, this.editorId, () => [...locals.keys()], { artifactId: this.#status.artifactId });
    if (this.#status.artifactId !== undefined && remote.artifactId !== this.#status.artifactId) {
      // The active artifact moved (generation, or another version picked): pull and
      // reconcile everything first; the local edits are part of that reconcile.
      this.#notice(`active artifact changed to ${remote.artifactId}: pulling before pushing`);
      return this.#fullPass(options);
    }
    const { files } = this.#triples(new Set(locals.keys()), (p) => locals.get(p), remote);
    const raced = await rebaseRaces(files, this.#ledger, remote.texts, this.#o.store);
    const plan = reconcile({ files, policy: this.#o.policy, force: false, folderExists: true, fullRemote: false });
    return this.#finish(plan, remote, raced, options.dryRun === true, true, undefined, toSend);
  }

  /** Local paths that differ from their base (for push, status and start-up). */
  async localChanges(): Promise<string[]> {
    return [...(await this.localChangeSet()).keys()];
  }

  /**
   * localChanges with what the scan found at each path (undefined: gone), in path order: a push
   * hands it to pushPaths as `seen`, so the scan is the push's first read of those files.
   */
  async localChangeSet(): Promise<Map<string, LocalFile | undefined>> {
    return this.#changesIn(await this.#o.local.scan());
  }

  /** The paths of `scan` (and the synced paths it lacks) that differ from their base, sorted. */
  #changesIn(scan: ReadonlyMap<string, LocalFile>): Map<string, LocalFile | undefined> {
    const changed = new Map<string, LocalFile | undefined>();
    for (const [p, f] of scan) if (this.#ledger.baseOf(p) !== f.hash) changed.set(p, { hash: f.hash, binary: f.binary, hasMarkers: f.hasMarkers });
    for (const p of this.#ledger.paths()) if (!scan.has(p)) changed.set(p, undefined);
    return new Map([...changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** The last synced text of `path` (undefined: no base, or its text is missing or damaged). */
  async baseText(path: string): Promise<string | undefined> {
    const hash = this.#ledger.baseOf(path);
    return hash === undefined ? undefined : this.#o.store.getBase(hash);
  }

  /** Persists every part now: state.json, then daemon.json (each written only when it changed). */
  async save(): Promise<void> {
    await this.#saveState();
    await this.#daemon.save();
  }

  /** Writes state.json from its owners (the ledger checked first: ledger-validation.ts). */
  #saveState(options?: { durable?: boolean }): Promise<void> {
    const { editorId, sourceDesign, ...newer } = this.#identity;
    const { artifactId, halted, refusedContent, refusedLocal } = this.#status.toJSON();
    const { files, pending, pendingPush, landed } = this.#ledger.toJSON();
    const state: PersistedState = { editorId, sourceDesign, artifactId, files, halted, refusedContent, refusedLocal, pending, pendingPush, landed, ...newer };
    return this.#o.store.save(state, options);
  }

  async #folderGone(): Promise<boolean> {
    return !(await this.#o.local.exists()) || (await this.#o.local.scan()).size === 0;
  }

  async #finish(
    plan: SyncPlan,
    remote: RemoteSnapshot,
    raced: ReadonlySet<string>,
    dryRun: boolean,
    send = true,
    progress?: CycleProgress,
    preread?: ReadonlyMap<string, ReadText>,
  ): Promise<CycleReport> {
    const report: CycleReport = {
      plan,
      dryRun,
      result: undefined,
      artifactId: remote.artifactId,
      remoteNames: remote.listed,
      refusedNames: remote.refused,
    };
    this.#reportRefused(remote);
    if (plan.halt !== undefined) {
      const why = describeHalt(plan.halt);
      if (!dryRun) {
        this.#status.halt(why, this.#o.clock.now());
        await this.save();
      }
      if (this.#said.halt(why)) {
        this.#o.emit({ event: "halted", dir: this.#o.dir, editorId: this.editorId, code: "HALTED", message: `needs attention: ${why}; run "mpsync pull --force" to proceed` });
      }
      return report;
    }
    if (dryRun) return report;
    const cleared = this.#status.clearHalt();
    const haltCleared = cleared !== undefined;
    if (cleared !== undefined) {
      this.#said.haltCleared();
      this.#o.emit({ event: "notice", dir: this.#o.dir, editorId: this.editorId, code: "RESUMED", message: `resumed: syncs again; it needed attention: ${cleared.reason}` });
    }
    report.result = await runPlan(this.#runContext(), { plan, remote, raced, haltCleared, send, progress, preread });
    return report;
  }

  #runContext(): PlanRunContext {
    return {
      options: this.#o,
      editorId: this.editorId,
      status: this.#status,
      ledger: this.#ledger,
      said: this.#said,
      scope: this.#scope,
      labels: this.#labels,
      notice: (m) => this.#notice(m),
      save: () => this.save(),
      takeRefusedLocalChanged: () => {
        const changed = this.#refusedLocalChanged;
        this.#refusedLocalChanged = false;
        return changed;
      },
    };
  }

  /**
   * The triples of `paths` (cycle-io.ts buildTriples), and what it found applied: the ledger's
   * reading starts the cycle, local-name verdicts go to the folder status, notices are given.
   */
  #triples(paths: Set<string>, localOf: (p: string) => LocalFile | undefined, remote: RemoteSnapshot): Triples {
    const status = this.#status;
    const triples = buildTriples(paths, localOf, remote, {
      ledger: this.#ledger,
      ignores: (p) => this.#o.local.ignores(p),
      refusedLocalOf: (p) => status.refusedLocalOf(p),
      judgeName: (r) => localNameJudge(r.listed),
    });
    this.#ledger.begin(triples.reading);
    if (status.noteLocalNames(triples.localNames)) this.#refusedLocalChanged = true;
    for (const n of triples.notices) this.#notice(n);
    return triples;
  }

  #reportRefused(remote: RemoteSnapshot): void {
    for (const r of remote.refused) this.#notice(`refused remote file name ${JSON.stringify(r.name)}: ${r.reason}`);
  }

  #notice(message: string): void {
    // Logged for files and --json; a terminal shows the event only (never the same line twice).
    this.#o.logger.warn({ shownAsEvent: true }, message);
    this.#o.emit({ event: "notice", dir: this.#o.dir, editorId: this.#editorId, message });
  }
}
