/** The engine's port onto a folder's `.mpsync/` store (implemented in src/state/). */
import type { BaseTexts } from "./executor.js";

/** What the engine persists per folder (state.json). */
export interface PersistedState {
  editorId?: string | undefined;
  sourceDesign?: string | undefined;
  artifactId?: string | undefined;
  /** path -> base hash (the content both sides agreed on last). */
  files: Record<string, { hash: string }>;
  /** path -> hash of content the service refused as a new file. */
  refusedContent?: Record<string, string> | undefined;
  /** New local names not pushed because the service's name rules refuse them: path -> reason. */
  refusedLocal?: Record<string, string> | undefined;
  /**
   * path -> hash of the remote content a cycle is about to write. Saved before the writes: a
   * crash between a write and the state save then leaves a file the next start recognises as
   * pulled (base = that hash) instead of mistaking it for a local edit.
   */
  pending?: Record<string, string> | undefined;
  /**
   * path -> the content a PATCH is sending and the base before it, saved before the PATCH.
   * After a crash, a file that still holds that content is reconciled from it when the remote
   * moved away from the old base (the push landed, then the web editor changed it).
   */
  pendingPush?: Record<string, { hash: string; previous: string | null }> | undefined;
  /**
   * path -> a PATCH answered on `artifactId`: what it sent and the remote content it replaced.
   * When a new version replaces a file still holding that content, the ledger can tell whether
   * the version was built without the push (a displaced edit, reported as a conflict).
   */
  landed?: Record<string, { hash: string; previous: string | null; artifactId: string }> | undefined;
  halted?: { reason: string; at: number } | undefined;
  lastError?: { code: string; message: string; at: number } | undefined;
  lastStatus?: { isGenerating: boolean; activeArtifactId: string | null; at: number } | undefined;
}

/** Load/save of the state plus the base-text, conflict and backup areas. */
export interface DesignStore extends BaseTexts {
  load(): Promise<{ state: PersistedState; recovered?: "missing" | "corrupt" | undefined }>;
  save(state: PersistedState): Promise<void>;
  saveConflict(rel: string, sides: { local?: string; remote?: string; base?: string }, stamp: string): Promise<void>;
  pruneBases(keep: ReadonlySet<string>): Promise<void>;
  /** True when a derived cache (e.g. the scan cache) learned something a save would keep. */
  hasUnsavedCache?(): boolean;
}
