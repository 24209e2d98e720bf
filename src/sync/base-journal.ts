/**
 * Which base a path reconciles from, and the journals that keep that answer right across a
 * crash or a race (all kept in state.json, see PersistedState):
 * - `pending`: remote contents a cycle is writing locally. A file found holding one after a
 *   crash was pulled; its base is that content, not a local edit.
 * - `pendingPush`: contents a PATCH is sending, with the remote hash it replaces. After a
 *   crash (or an answer lost on the way back), a remote holding exactly the pushed content
 *   means the PATCH landed: the pushed content is the base. Anything else is no proof: the
 *   recorded base stands and a 3-way merge settles the file.
 * Pure functions over the state: DesignSync stores texts and saves.
 */
import type { PersistedState } from "./design-store.js";

/** The base chosen for one path, and whether a journal supplied it (then it must be recorded; undefined = no base). */
export interface ResolvedBase {
  base: string | undefined;
  adopted: boolean;
}

/** The base of `path` given its local and remote hashes and the active artifact. */
export function resolveBase(state: PersistedState, path: string, localHash: string | undefined, remoteHash: string | undefined): ResolvedBase {
  const base = state.files[path]?.hash;
  const pulled = state.pending?.[path];
  if (pulled !== undefined && localHash === pulled) return { base: pulled, adopted: true };
  const inFlight = state.pendingPush?.[path];
  if (inFlight !== undefined && base !== inFlight.hash) {
    // Only a remote holding exactly what was sent proves the PATCH landed. A remote that moved
    // off the old hash proves nothing: a refused or dropped PATCH followed by a generation or a
    // web-editor edit looks the same, and adopting the unsent edit as the base would pull the
    // remote change over it (issue 11). Without proof the recorded base stands: the edit and
    // the remote change are merged (or reported as a conflict), never silently replaced.
    if (remoteHash === inFlight.hash) return { base: inFlight.hash, adopted: true };
  }
  return { base, adopted: false };
}

/** Journals a PATCH about to be sent: path -> hash sent, remote hash it replaces. */
export function journalPush(state: PersistedState, sent: readonly { path: string; hash: string; previous: string | null }[]): void {
  const pendingPush = { ...state.pendingPush };
  for (const s of sent) pendingPush[s.path] = { hash: s.hash, previous: s.previous };
  state.pendingPush = pendingPush;
}

/** Base-text hashes the journals still need (kept when pruning). */
export function journalHashes(state: PersistedState): string[] {
  const out: string[] = [];
  for (const p of Object.values(state.pendingPush ?? {})) out.push(p.hash);
  for (const hash of Object.values(state.pending ?? {})) out.push(hash);
  return out;
}
