/**
 * The daemon loop's effects that need only the worker's options: what is said, recorded or
 * saved, and what is handed on (commit-on-pull, a stop, a fatal error). The effects that touch
 * the worker's own state (cycles, timers, the change source, the abort signal) stay in
 * design-worker.ts, which hands every other effect here.
 */
import type { CycleReport } from "../sync/design-sync.js";
import type { Effect, LoopEvent } from "./loop-state.js";
import type { DesignWorkerOptions } from "./worker-options.js";

/** What some effects hand on, kept out of the (pure) loop's events. */
export interface EffectContext {
  report?: CycleReport | undefined;
  err?: unknown;
}

/** An event waiting its turn in the worker's queue, with what its effects hand on. */
export interface Queued {
  event: LoopEvent;
  about: EffectContext;
}

/** A `failed` event, with the error the fatal and stop effects hand on. */
export type FailedEvent = Queued & { event: Extract<LoopEvent, { type: "failed" }> };

const PLAIN = ["emit", "set-status", "save", "record-error", "clear-error", "after-pull", "settle-heap", "stopped", "fatal", "log"] as const;

/** An effect runPlainEffect runs. */
export type PlainEffect = Extract<Effect, { do: (typeof PLAIN)[number] }>;

const plain: ReadonlySet<Effect["do"]> = new Set(PLAIN);

/** True for the effects that need only the options (runPlainEffect). */
export function isPlainEffect(effect: Effect): effect is PlainEffect {
  return plain.has(effect.do);
}

/** Runs one effect that needs only the worker's options. */
export async function runPlainEffect(o: DesignWorkerOptions, effect: PlainEffect, about: EffectContext): Promise<void> {
  const { sync } = o;
  switch (effect.do) {
    case "emit":
      o.emit({ ...effect.event, dir: o.dir, editorId: sync.editorId });
      return;
    case "set-status":
      sync.daemon.recordStatus(effect.status, effect.status.at);
      return;
    // These change only daemon.json: state.json (the bases) is neither rebuilt nor checked.
    case "save":
      return sync.daemon.save();
    case "record-error":
      // `mpsync status` (another process) reads this from .mpsync.
      sync.daemon.recordError(effect, o.clock.now());
      sync.daemon.save().catch((err: unknown) => o.logger.debug({ err }, "could not record the error"));
      return;
    case "clear-error":
      sync.daemon.clearError();
      return sync.daemon.save();
    case "after-pull":
      return about.report === undefined ? undefined : o.onPulled?.(about.report, sync.editorId, (p) => sync.baseText(p));
    case "settle-heap":
      o.settleHeap?.();
      return;
    case "stopped":
      o.onStopped?.(about.err);
      return;
    case "fatal":
      o.onFatal(about.err);
      return;
    case "log":
      o.logger[effect.level](effect.fields, effect.message);
      return;
    default:
      return effect satisfies never;
  }
}
