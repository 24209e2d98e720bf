/**
 * What the daemon last saw of a design, for `mpsync status` in another process: the last status
 * answer (`lastStatus`) and the last failure (`lastError`). Kept in `.mpsync/daemon.json`, apart
 * from the bases, so a status save never rewrites state.json; this record is its one writer.
 */
import type { DeepReadonly } from "../core/deep-readonly.js";
import type { DaemonRecordData } from "./ports.js";

/** The daemon's record of one folder; `save` writes daemon.json. */
export class DaemonRecord {
  #data: DaemonRecordData;
  readonly #save: (record: DaemonRecordData) => Promise<void>;

  constructor(data: DaemonRecordData, save: (record: DaemonRecordData) => Promise<void>) {
    this.#data = { lastStatus: data.lastStatus, lastError: data.lastError };
    this.#save = save;
  }

  /** The last status answer any process recorded. */
  get lastStatus(): DeepReadonly<DaemonRecordData["lastStatus"]> {
    return this.#data.lastStatus;
  }

  /** The daemon's last failure, until a cycle succeeds again. */
  get lastError(): DeepReadonly<DaemonRecordData["lastError"]> {
    return this.#data.lastError;
  }

  /** Notes a status answer (`at`: when, wall clock); saved by the next save. */
  recordStatus(status: { isGenerating: boolean; activeArtifactId: string | null }, at: number): void {
    this.#data = { ...this.#data, lastStatus: { isGenerating: status.isGenerating, activeArtifactId: status.activeArtifactId, at } };
  }

  /** Notes a failed cycle; saved by the next save. */
  recordError(error: { code: string; message: string }, at: number): void {
    this.#data = { ...this.#data, lastError: { code: error.code, message: error.message, at } };
  }

  /** A cycle succeeded again. */
  clearError(): void {
    this.#data = { ...this.#data, lastError: undefined };
  }

  /** Writes daemon.json (the store skips a write that would change nothing). */
  save(): Promise<void> {
    return this.#save(this.#data);
  }
}
