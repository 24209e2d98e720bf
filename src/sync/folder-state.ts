/**
 * A folder's persisted state, put together from its owners and written back by them: the
 * BaseLedger (bases and journals), the FolderStatus (artifact, halt, refusals), the DaemonRecord
 * (daemon.json) and the design the folder maps (`editorId`, `sourceDesign`, cached here so a
 * URL is resolved once). Fields a newer release wrote are kept as read. Outside the owners the
 * state is only read (`view`).
 */
import type { DeepReadonly } from "../core/deep-readonly.js";
import { BaseLedger } from "./base-ledger.js";
import type { DesignSyncOptions } from "./cycle-context.js";
import { DaemonRecord } from "./daemon-record.js";
import { FolderStatus } from "./folder-status.js";
import type { DaemonRecordData, PersistedState } from "./ports.js";
import { resolveEditorId } from "./resolve-design.js";

/** A folder's state as everything outside its owners sees it: read-only. */
export type FolderStateView = DeepReadonly<PersistedState & DaemonRecordData>;

/** The owners of one folder's state. */
export class FolderState {
  readonly editorId: string;
  readonly ledger: BaseLedger;
  readonly status: FolderStatus;
  readonly daemon: DaemonRecord;
  /** The design the folder maps, and fields a newer release wrote. */
  readonly #identity: Pick<PersistedState, "editorId" | "sourceDesign"> & Record<string, unknown>;
  readonly #options: Pick<DesignSyncOptions, "store" | "clock">;

  private constructor(o: Pick<DesignSyncOptions, "store" | "clock">, state: PersistedState, daemon: DaemonRecordData, editorId: string) {
    this.#options = o;
    this.editorId = editorId;
    const { files, pending, pendingPush, landed, unanswered, artifactId, halted, refusedContent, refusedLocal, ...identity } = state;
    // The journals are saved without a flush: they sit between a read and the write it decided
    // (README, known limits: the window); the cycle's flush makes them durable with the files.
    this.ledger = new BaseLedger({ files, pending, pendingPush, landed, unanswered }, () => this.#saveState({ durable: false }), o.clock);
    this.status = new FolderStatus({ artifactId, halted, refusedContent, refusedLocal });
    this.daemon = new DaemonRecord(daemon, (record) => o.store.saveDaemon(record));
    this.#identity = { ...identity, editorId, sourceDesign: undefined };
  }

  /**
   * Loads the folder's state and resolves the mapping's design (cached in it). A state of
   * another design keeps no base: the old bases describe nothing shared.
   */
  static async load(o: Pick<DesignSyncOptions, "store" | "clock" | "client" | "design">, notice: (message: string) => void): Promise<FolderState> {
    const { state, daemon, recovered } = await o.store.load();
    if (recovered === "corrupt") notice("state.json was corrupt: it was set aside; differing files will become conflicts");
    const editorId = await resolveEditorId(o.client, o.design, state);
    const folder = new FolderState(o, state, daemon, editorId);
    if (state.editorId !== undefined && state.editorId !== editorId) {
      notice(`mapping changed from ${state.editorId} to ${editorId}: starting without a base`);
      folder.ledger.reset();
      folder.status.forgetArtifact();
    }
    folder.#identity.sourceDesign = o.design;
    return folder;
  }

  /** Every field, read-only. */
  get view(): FolderStateView {
    return { ...this.#identity, ...this.status.data, ...this.ledger.data, lastStatus: this.daemon.lastStatus, lastError: this.daemon.lastError };
  }

  /** Persists every part: state.json, then daemon.json (the store writes each only when it changed). */
  async save(): Promise<void> {
    await this.#saveState();
    await this.daemon.save();
  }

  /** Writes state.json from its owners (the ledger checks itself first: ledger-validation.ts). */
  #saveState(options?: { durable?: boolean }): Promise<void> {
    const { editorId, sourceDesign, ...newer } = this.#identity;
    const { artifactId, halted, refusedContent, refusedLocal } = this.status.toJSON();
    const { files, pending, pendingPush, landed, unanswered } = this.ledger.toJSON();
    const state: PersistedState = {
      editorId,
      sourceDesign,
      artifactId,
      files,
      halted,
      refusedContent,
      refusedLocal,
      pending,
      pendingPush,
      landed,
      unanswered,
      ...newer,
    };
    return this.#options.store.save(state, options);
  }
}
