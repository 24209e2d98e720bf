/**
 * What a folder's state.json says besides its bases: the active version the bases were last
 * agreed on (`artifactId`), a halt that needs the user (`halted`), and the files the service or
 * its name rules refused (`refusedContent`, `refusedLocal`: `status` lists them). One owner, so
 * each field has one writer: the cycle calls these methods; everything else reads.
 */
import type { DeepReadonly } from "../core/deep-readonly.js";
import type { PersistedState } from "./ports.js";

/** The part of the persisted state a FolderStatus owns. */
export type FolderStatusData = Pick<PersistedState, "artifactId" | "halted" | "refusedContent" | "refusedLocal">;

/** A folder's artifact, halt and refusals. */
export class FolderStatus {
  #data: FolderStatusData;

  constructor(data: FolderStatusData) {
    this.#data = { artifactId: data.artifactId, halted: data.halted, refusedContent: data.refusedContent, refusedLocal: data.refusedLocal };
  }

  /** The fields as they stand (read-only). */
  get data(): DeepReadonly<FolderStatusData> {
    return this.#data;
  }

  /** The active artifact of the last cycle that ran (undefined before the first). */
  get artifactId(): string | undefined {
    return this.#data.artifactId;
  }

  /** Why the folder needs attention, and since when; undefined when it syncs. */
  get halted(): DeepReadonly<FolderStatusData["halted"]> {
    return this.#data.halted;
  }

  /** The fields for state.json. */
  toJSON(): FolderStatusData {
    return this.#data;
  }

  /** A cycle ran on `artifactId`. True when it moved. */
  moveTo(artifactId: string): boolean {
    const moved = this.#data.artifactId !== artifactId;
    this.#data = { ...this.#data, artifactId };
    return moved;
  }

  /** The mapping now points at another design: no version is known. */
  forgetArtifact(): void {
    this.#data = { ...this.#data, artifactId: undefined };
  }

  /** The circuit breakers stopped the folder (until a cycle runs again, e.g. `pull --force`). */
  halt(reason: string, at: number): void {
    this.#data = { ...this.#data, halted: { reason, at } };
  }

  /** A cycle runs again: resolves the halt it ends, if any. */
  clearHalt(): DeepReadonly<FolderStatusData["halted"]> {
    const was = this.#data.halted;
    if (was !== undefined) this.#data = { ...this.#data, halted: undefined };
    return was;
  }

  /** The content hash of `path` the service refused (sent again only once it changes). */
  refusedContentOf(path: string): string | undefined {
    return this.#data.refusedContent?.[path];
  }

  /**
   * Records a cycle's answers: `refused` (path -> content hash the service refused), and the
   * paths it took (`accepted`: a refusal of an older content is over).
   */
  noteContent(refused: ReadonlyMap<string, string>, accepted: readonly string[]): void {
    const next = { ...this.#data.refusedContent };
    for (const [path, hash] of refused) next[path] = hash;
    for (const path of accepted) delete next[path];
    this.#data = { ...this.#data, refusedContent: next };
  }

  /** Why a local name is not pushed (local-refusals.ts), if it is refused. */
  refusedLocalOf(path: string): string | undefined {
    return this.#data.refusedLocal?.[path];
  }

  /**
   * Applies a cycle's verdicts on local names (path -> reason refused, or undefined: no longer
   * refused). True when `refusedLocal` changed (state.json must be saved: status reads it).
   */
  noteLocalNames(verdicts: ReadonlyMap<string, string | undefined>): boolean {
    const next = { ...this.#data.refusedLocal };
    let changed = false;
    for (const [path, reason] of verdicts) {
      if (next[path] === reason) continue;
      if (reason === undefined) delete next[path];
      else next[path] = reason;
      changed = true;
    }
    if (changed) this.#data = { ...this.#data, refusedLocal: Object.keys(next).length === 0 ? undefined : next };
    return changed;
  }
}
