/**
 * The sync cycles a DesignWorker runs, and what the next full sync may use: the remote read
 * begun at start-up (it arrives while the watcher gets ready), the version a status answer just
 * named (its files are read without another active-artifact call), a forced run (`pull --force`
 * handed over). Also publish-on-push, and when old backups are pruned (keepBackupsDays). The loop (worker-loop.ts) decides when; this runs them.
 */
import { ApiError } from "../api/errors.js";
import type { DesignStatus } from "../api/schemas.js";
import { hasCode } from "../core/errors.js";
import type { CycleReport } from "../sync/design-sync.js";
import { PRUNE_INTERVAL_MS } from "../local/backup-retention.js";
import { describeError } from "../sync/describe-error.js";
import type { RemoteSnapshot } from "../sync/remote-snapshot.js";
import type { DesignWorkerOptions } from "./worker-options.js";

/** One worker's cycles. */
export class WorkerCycles {
  readonly #o: DesignWorkerOptions;
  /** The start-up cycle's remote read, begun before the watcher is ready (DesignWorker.start). */
  startupRemote: Promise<RemoteSnapshot> | undefined;
  /** The version the last status answer named, for the full sync it triggers. */
  namedVersion: { artifactId: string; files: string[] } | undefined;
  /** The next full sync proceeds past the circuit breakers (`pull --force` handed over). */
  forceNext = false;
  /** Full syncs run, and the last one's report (syncNow tells whether its cycle ran). */
  fullSyncs = 0;
  lastFull: CycleReport | undefined;
  /** The read of a new version, sent as the status answer naming it arrived (readEarly). */
  #early: { artifactId: string; read: Promise<RemoteSnapshot> } | undefined;

  /** When backups were last pruned (monotonic ms). */
  #prunedAt: number | undefined;
  /** The prunes asked for, one after another; beside the cycles, not in their chain. */
  #prunes: Promise<void> = Promise.resolve();

  constructor(options: DesignWorkerOptions) {
    this.#o = options;
  }

  /**
   * Prunes old backups (keepBackupsDays) after any prune running; never rejects. It may run
   * beside a cycle: a cycle writes under a stamp of now and reuses a backup at most an hour old
   * (BACKUP_REUSE_MS), and pruning reaches only folders more than a day old.
   */
  prune(): Promise<void> {
    this.#prunedAt = this.#o.clock.monotonic();
    const run = this.#prunes.then(() => this.#o.pruneBackups?.()).catch((err: unknown) => this.#o.logger.warn({ err }, "could not prune old backups"));
    this.#prunes = run;
    return run;
  }

  /** Prunes when PRUNE_INTERVAL_MS have passed since the last prune: asked at each status answer, so an idle daemon needs no timer of its own. */
  pruneIfDue(): void {
    if (this.#prunedAt === undefined || this.#o.clock.monotonic() - this.#prunedAt >= PRUNE_INTERVAL_MS) void this.prune();
  }

  /** Resolves once the prunes asked for so far have run (tests). */
  get pruned(): Promise<void> {
    return this.#prunes;
  }

  /**
   * Sends the read of the version `status` names when it is new to the folder, the moment the
   * answer arrives: the lock check, the poll ledger and the loop's step then run while it is in
   * flight, and the full sync that answer starts takes it. The caller sends it only with no
   * cycle queued or running (a cycle before the full sync could change what it should read) and
   * drops it when its status task ends; a read changes nothing on the service.
   */
  readEarly(status: DesignStatus): void {
    const id = status.activeArtifactId;
    this.#early = undefined;
    if (status.isGenerating || id === null || id === this.#o.sync.status.artifactId || this.#o.gitBusy()) return;
    this.#early = { artifactId: id, read: this.#o.sync.readVersion({ artifactId: id, files: status.availableFiles }) };
  }

  /** Forgets a read sent by readEarly that no full sync took. */
  dropEarly(): void {
    this.#early = undefined;
  }

  /** A full sync, or with `check` the content check (a slice) when nothing asks for more. */
  async full(check: boolean): Promise<CycleReport> {
    const { sync } = this.#o;
    const remote = this.startupRemote;
    this.startupRemote = undefined;
    // A status answer that just named a new version lists its files: the pull reads them
    // without asking for the active artifact again (one round trip less per new version).
    const named = this.namedVersion;
    this.namedVersion = undefined;
    const active = remote === undefined && named !== undefined && named.artifactId !== sync.status.artifactId ? named : undefined;
    const early = active !== undefined && this.#early?.artifactId === active.artifactId ? this.#early.read : undefined;
    this.#early = undefined;
    // A content check reads a slice (check-scope.ts); a handed-over `sync`/`pull --force` reads all.
    const slice = check && remote === undefined && active === undefined && !this.forceNext;
    // The status answer that made the check due lists the version's files: no active-artifact call.
    const listed = named !== undefined && named.artifactId === sync.status.artifactId ? { active: named } : {};
    let report: CycleReport;
    try {
      report = slice
        ? await sync.checkRemote(listed)
        : await sync.fullSync({ remote: remote ?? early, force: this.forceNext, ...(active === undefined ? {} : { active }) });
    } finally {
      this.#o.onCycleEnd?.();
    }
    this.fullSyncs += 1;
    this.lastFull = report;
    return report;
  }

  /** A push pass over `paths` (the caller tells onCycleEnd). */
  push(paths: Iterable<string>): Promise<CycleReport | undefined> {
    this.namedVersion = undefined;
    return this.#o.sync.pushPaths(new Set(paths));
  }

  /** Publishes `artifactId` (publishOnPush); a compile failure is said and sync goes on. */
  async publish(artifactId: string): Promise<void> {
    const { client, sync, emit, dir } = this.#o;
    try {
      const r = await client.publish(sync.editorId, artifactId);
      emit({
        event: "published",
        dir,
        editorId: sync.editorId,
        previewUrl: r.previewUrl,
        message: `published${r.previewUrl === undefined ? "" : ` ${r.previewUrl}`}${r.warning === undefined ? "" : `; ${r.warning}`}`,
      });
    } catch (err) {
      // A compile failure is the user's code, not a sync failure: show it and go on.
      if (!hasCode(err, "UNPROCESSABLE")) throw err;
      // The compiler's own words (`file:line:col: message`) are what the user and editors need.
      const why = err instanceof ApiError && err.serverMessage !== undefined ? err.serverMessage : describeError(err);
      emit({ event: "error", dir, editorId: sync.editorId, code: err.code, message: `publish failed: ${why}` });
    }
  }
}
