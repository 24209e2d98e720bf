/**
 * A folder's live state for the control channel's `subscribe`: the daemon's events for that
 * folder and the ends of its cycles, folded into the one state word (sync/sync-state.ts), and
 * handed to every listener with the event that moved it.
 */
import type { SyncEvent } from "../sync/events.js";
import { nextSyncState, syncStateLabel, type SyncState, type SyncStateInput } from "../sync/sync-state.js";

/** One update: the state after an event, or after a cycle's end (a client's own "pushing" ends there). */
export type StateUpdate = { state: SyncState; label: string } & ({ event: SyncEvent } | { cycleEnd: true });

/** The state of one folder, and who listens to it. */
export class StateFeed {
  #state: SyncState = "starting";
  readonly #listeners = new Set<(update: StateUpdate) => void>();

  /** The current state. */
  get state(): SyncState {
    return this.#state;
  }

  /** A daemon event of this folder: every listener hears it, with the state it leads to. */
  event(event: SyncEvent): void {
    const unresolved = event.event === "conflict" ? { unresolved: event.unresolved } : {};
    const input: SyncStateInput = { kind: "event", event: event.event, code: codeOf(event), ...unresolved, message: event.message };
    this.#state = nextSyncState(this.#state, input);
    this.#tell({ state: this.#state, label: syncStateLabel(this.#state), event });
  }

  /** A cycle ended (its writes are on disk). */
  cycleEnd(): void {
    this.#state = nextSyncState(this.#state, { kind: "cycle-end" });
    this.#tell({ state: this.#state, label: syncStateLabel(this.#state), cycleEnd: true });
  }

  /** True while someone listens (tests). */
  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  /** Calls `listener` with each update until the returned function is called. */
  listen(listener: (update: StateUpdate) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(update: StateUpdate): void {
    for (const listener of this.#listeners) listener(update);
  }
}

/** The code of the events that carry one. */
function codeOf(event: SyncEvent): string | undefined {
  return event.event === "error" || event.event === "halted" || event.event === "notice" ? event.code : undefined;
}
