/**
 * The sync cycles a DesignWorker runs, each with the inputs the loop's effect names (worker-loop.ts
 * decides when and with what; this runs them), and the one remote read sent ahead of its cycle.
 * Also publish-on-push, and when old backups are pruned (keepBackupsDays).
 */
import { ApiError } from "../api/errors.js";
import type { CycleReport } from "../sync/design-sync.js";
import { PRUNE_INTERVAL_MS } from "../local/backup-retention.js";
import { describeError } from "../sync/describe-error.js";
import type { RemoteSnapshot } from "../sync/remote-snapshot.js";
import { errorCode, hasCode } from "../core/errors.js";
import { cycleDoneEvent, type CycleEffect, type NamedVersion } from "./loop-state.js";
import type { FailedEvent, Queued } from "./worker-effects.js";
import type { DesignWorkerOptions } from "./worker-options.js";

/** One worker's cycles. */
export class WorkerCycles {
  readonly #o: DesignWorkerOptions;
  /** The remote read sent ahead of its cycle (the loop's `read-ahead` effect). */
  #readAhead: Promise<RemoteSnapshot> | undefined;

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

  /** Sends the remote read of `version` (or of the active version) ahead of the cycle that takes it. */
  readAhead(version?: NamedVersion): void {
    const { sync } = this.#o;
    const read = version === undefined ? sync.readRemote() : sync.readVersion(version);
    // Dropped unread when no cycle takes it: its failure is the cycle's to report, or no one's.
    read.catch(() => undefined);
    this.#readAhead = read;
  }

  /** Forgets the read sent ahead (no cycle takes it). */
  dropReadAhead(): void {
    this.#readAhead = undefined;
  }

  /** Runs the cycle `effect` names: a content check, a full sync or a push pass. */
  async run(effect: CycleEffect): Promise<CycleReport | undefined> {
    const { sync } = this.#o;
    try {
      if (effect.do === "push") return await sync.pushPaths(new Set(effect.paths));
      if (effect.check === true) return await sync.checkRemote(effect.listed === undefined ? {} : { active: effect.listed });
      const remote = effect.readAhead ? this.#readAhead : undefined;
      this.#readAhead = undefined;
      return await sync.fullSync({
        force: effect.force,
        ...(remote === undefined ? {} : { remote }),
        ...(effect.active === undefined ? {} : { active: effect.active }),
      });
    } finally {
      this.#o.onCycleEnd?.();
    }
  }

  /**
   * Runs the cycle `effect` names; its end, or its failure (a push's paths put back first), is
   * what the loop hears next. A full sync a `mpsync sync` asked for hands back its request.
   */
  async outcome(effect: CycleEffect, failed: (err: unknown) => FailedEvent): Promise<Queued[]> {
    const request = effect.do === "full-sync" && effect.check === undefined ? effect.request : undefined;
    let report: CycleReport | undefined;
    try {
      report = await this.run(effect);
    } catch (err) {
      const failure = failed(err);
      // The reply's words: it never names the folder (describeFailure's disk-full line does).
      if (request !== undefined) failure.event = { ...failure.event, answers: { request: request.id, code: errorCode(err), message: describeError(err) } };
      return effect.do === "push" ? [{ event: { type: "unsent", paths: effect.paths }, about: {} }, failure] : [failure];
    }
    const { sync, clock } = this.#o;
    const after = request === undefined ? {} : { request, halted: sync.status.halted !== undefined };
    const event = cycleDoneEvent(effect.do === "full-sync", report, sync.daemon.lastError !== undefined, clock.monotonic(), after);
    return [{ event, about: { report } }];
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
