/**
 * One mapped folder <-> one design. Runs sync cycles: a full cycle (pull: every path on both
 * sides), the daemon's content check (a slice of them) and a push pass (only the paths that
 * changed locally). Each runs as one cycle (cycle.ts: observe, plan, act, read back) over the
 * folder's CycleContext. The folder's state has one owner per part (folder-state.ts); the rest
 * of the program reads it through `state`.
 */
import { MpsyncError } from "../core/errors.js";
import type { IgnoreMatcher } from "../local/ignore-rules.js";
import { CheckScope } from "./check-scope.js";
import type { CycleContext, CycleReport, DesignSyncOptions } from "./cycle-context.js";
import type { DaemonRecord } from "./daemon-record.js";
import type { FolderStatus } from "./folder-status.js";
import { FolderState, type FolderStateView } from "./folder-state.js";
import type { LocalFile } from "./model.js";
import type { ScannedLocal, SkippedPath } from "./ports.js";
import { runCycle } from "./cycle.js";
import { changesIn, listedVersion, readWholeRemote, type FullSyncOptions, type PushOptions } from "./observe-cycle.js";
import type { RemoteHint, RemoteSnapshot } from "./remote-snapshot.js";
import { Announcements } from "./announcements.js";

export type { CycleProgress, CycleReport, DesignSyncOptions } from "./cycle-context.js";
export type { FullSyncOptions, PushOptions } from "./observe-cycle.js";
export type { FolderStateView } from "./folder-state.js";

/** Sync of one folder with one design. Cycles must not overlap (the caller serializes). */
export class DesignSync {
  readonly #options: DesignSyncOptions;
  #folder: FolderState | undefined;
  #ctx: CycleContext | undefined;
  /** A halt, a path failure or a local deletion is announced when it begins and when it ends, not every cycle. */
  readonly #announced = new Announcements();
  /** The files a content check reads (check-scope.ts). */
  readonly #scope = new CheckScope();
  /** Labels of the versions conflicts were marked against (cycle-steps.ts). */
  readonly #labels = new Map<string, Promise<string>>();

  constructor(options: DesignSyncOptions) {
    this.#options = options;
  }

  /** The design's editorId (after open). */
  get editorId(): string {
    return this.#opened().editorId;
  }

  /** The mapping's folder as written in .syncrc. */
  get dir(): string {
    return this.#options.dir;
  }

  /** The folder's ignore rules. */
  get matcher(): IgnoreMatcher {
    return this.#options.matcher;
  }

  /** What the last scan left out of sync, and why (symlinks, special files). */
  get skipped(): SkippedPath[] {
    return this.#options.local.skipped();
  }

  /** The persisted state (after open), read-only: each part is written by its owner. */
  get state(): FolderStateView {
    return this.#opened().folder.view;
  }

  /** The folder's artifact, halt and refusals (after open). */
  get status(): FolderStatus {
    return this.#opened().folder.status;
  }

  /** The daemon's last status and error, saved to daemon.json (after open). */
  get daemon(): DaemonRecord {
    return this.#opened().folder.daemon;
  }

  /**
   * Loads state and resolves the design to an editorId (cached in state). `holdsLock`: the
   * caller holds the folder lock, so leftovers of a killed process may be cleaned up.
   */
  async open(options: { holdsLock?: boolean } = {}): Promise<void> {
    const holdsLock = options.holdsLock === true;
    if (holdsLock) this.#sayRemoved(await this.#options.local.removeStaleTemps(), "a temp file", "temp files");
    const folder = await FolderState.load(this.#options, (m) => this.#notice(m));
    // The pull journal names every file a killed cycle may have been creating.
    const journalled = Object.keys(folder.ledger.data.pending ?? {});
    if (holdsLock && journalled.length > 0)
      this.#sayRemoved(await this.#options.local.removeIncomplete(journalled), "a half-written new file", "half-written new files");
    this.#folder = folder;
    this.#ctx = {
      options: this.#options,
      editorId: folder.editorId,
      ledger: folder.ledger,
      status: folder.status,
      announced: this.#announced,
      scope: this.#scope,
      labels: this.#labels,
      notice: (m) => this.#notice(m),
      save: () => folder.save(),
    };
  }

  #sayRemoved(removed: string[], one: string, many: string): void {
    if (removed.length === 0) return;
    const names = `${removed.slice(0, 3).join(", ")}${removed.length > 3 ? `, and ${removed.length - 3} more` : ""}`;
    this.#options.logger.info(`removed ${removed.length === 1 ? one : `${removed.length} ${many}`} an interrupted write left: ${names}`);
  }

  /**
   * A full cycle over every path. `pullOnly` (`mpsync pull`): nothing is sent; local changes are
   * reported as waiting to be pushed, and a merge is written locally for the next push to send.
   */
  async fullSync(options: FullSyncOptions = {}): Promise<CycleReport> {
    const { ctx } = this.#opened();
    await this.#takeIntents();
    // It reads every file: the content checks' sweep starts over from here.
    return (await runCycle(ctx, { kind: "full", options, sweep: "all" }))!;
  }

  /**
   * The daemon's content check (check-scope.ts): the files changed on either side in the last
   * hour and the next slice of the others, each reconciled as a full cycle would; every remote
   * name the active version lists is known, so new and vanished remote files are judged too.
   */
  async checkRemote(options: { active?: { artifactId: string; files: string[] } } = {}): Promise<CycleReport> {
    const { ctx } = this.#opened();
    const { clock } = this.#options;
    // The check's one scan (mostly cached stats) comes first: the first check of a run takes
    // the files modified in the last hour as recent (CheckScope.seed).
    await this.#takeIntents();
    const scan = (await this.#options.local.exists()) ? await this.#options.local.scan() : undefined;
    if (scan !== undefined && this.#scope.needsSeed) this.#scope.seed(syncedMtimes(ctx.ledger, scan), clock.now(), clock.monotonic());
    const scope = this.#scope.next(ctx.ledger.paths(), clock.monotonic());
    // Every local change is in scope too: a save whose push was lost on the way (a watcher that
    // missed it, a failed cycle) still goes out.
    if (scan !== undefined) for (const p of changesIn(ctx.ledger, scan).keys()) scope.add(p);
    return (await runCycle(ctx, { kind: "full", options, scope, ...(scan === undefined ? {} : { scan }), sweep: scope }))!;
  }

  /** The folder's last writes are done (a daemon stopping): held files end (LocalTree.endHolds). */
  async endHolds(): Promise<void> {
    await this.#options.local.endHolds?.();
  }

  /**
   * A status request sent at `sentAt` (monotonic) found the design idle on `artifactId`: every
   * PATCH answered on it before then is part of any version started later (other-writers.ts).
   */
  observeIdle(artifactId: string, sentAt: number): void {
    this.#opened().ctx.ledger.seenIdle(artifactId, sentAt);
  }

  /** The user's requests for a new version (`prompt`, `checkout`) since the last cycle, applied to the ledger. */
  async #takeIntents(): Promise<void> {
    const intents = (await this.#options.store.takeVersionIntents?.()) ?? [];
    for (const { landed, unanswered } of intents) {
      this.#opened().ctx.ledger.askedAfter(landed);
      if (unanswered !== undefined) this.#opened().ctx.ledger.chosenOver(unanswered);
    }
  }

  /**
   * Reads the whole remote side (active artifact and every text), for fullSync's `remote`. A
   * rejection is marked handled here: whoever awaits the promise gets the error.
   */
  readRemote(hint: RemoteHint = {}): Promise<RemoteSnapshot> {
    return readWholeRemote(this.#opened().ctx, hint);
  }

  /**
   * Reads the whole of a version a status answer just named, as fullSync with that `active`
   * would (its list stands in for the active-artifact call when it names every synced file),
   * for fullSync's `remote`: the daemon sends it the moment the answer arrives.
   */
  readVersion(named: { artifactId: string; files: string[] }): Promise<RemoteSnapshot> {
    const { ctx } = this.#opened();
    const active = listedVersion(ctx.ledger, named);
    return readWholeRemote(ctx, active === undefined ? {} : { active });
  }

  /**
   * Push pass over `paths` (changed locally, from the watcher or a scan). Makes no request at
   * all when none of them differs from its base: that is how the tool's own writes never echo.
   */
  pushPaths(paths: Iterable<string>, options: PushOptions = {}): Promise<CycleReport | undefined> {
    return runCycle(this.#opened().ctx, { kind: "push", paths, options });
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
    const { ledger } = this.#opened().ctx;
    return changesIn(ledger, await this.#options.local.scan());
  }

  /** The last synced text of `path` (undefined: no base, or its text is missing or damaged). */
  async baseText(path: string): Promise<string | undefined> {
    const hash = this.#opened().ctx.ledger.baseOf(path);
    return hash === undefined ? undefined : this.#options.store.getBase(hash);
  }

  /** Persists every part now: state.json, then daemon.json (each written only when it changed). */
  async save(): Promise<void> {
    await this.#opened().folder.save();
  }

  #opened(): { folder: FolderState; ctx: CycleContext; editorId: string } {
    if (this.#folder === undefined || this.#ctx === undefined) throw new MpsyncError("INTERNAL", "DesignSync used before open()");
    return { folder: this.#folder, ctx: this.#ctx, editorId: this.#folder.editorId };
  }

  #notice(message: string): void {
    // Logged for files and --json; a terminal shows the event only (never the same line twice).
    this.#options.logger.warn({ shownAsEvent: true }, message);
    this.#options.emit({ event: "notice", dir: this.#options.dir, editorId: this.#folder?.editorId, message });
  }
}

/** Modification times of the scanned files that have a base (synced ones), where the tree has them. */
function syncedMtimes(ledger: { baseOf(p: string): string | undefined }, scan: ReadonlyMap<string, ScannedLocal>): Array<[string, number]> {
  return [...scan].flatMap(([p, f]): Array<[string, number]> => (f.mtimeMs !== undefined && ledger.baseOf(p) !== undefined ? [[p, f.mtimeMs]] : []));
}
