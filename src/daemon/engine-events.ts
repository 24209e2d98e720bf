/**
 * A design engine's events on their way to the daemon's sink. The engine is created with this
 * sink before its worker exists (the worker runs the engine), so the worker hears each event by
 * listening here, first: after an outage, "back online" goes out before "pushed".
 */
import type { EventSink, SyncEvent } from "../sync/events.js";

/** The sink one design's engine is created with, and the one listener that hears each event first. */
export class EngineEvents {
  readonly #out: EventSink;
  #listener: ((event: SyncEvent) => void) | undefined;

  constructor(out: EventSink) {
    this.#out = out;
  }

  /** What the engine emits into. */
  readonly sink: EventSink = (event) => {
    this.#listener?.(event);
    this.#out(event);
  };

  /** `listener` hears every later event before it goes out (one listener: the design's worker). */
  listen(listener: (event: SyncEvent) => void): void {
    this.#listener = listener;
  }
}
