/** One model run: a fresh world, its first pull, the commands with checks, a final quiet. */
import fc from "fast-check";
import type { ConflictPolicy } from "../../src/sync/model.js";
import { applyCommand, commandArb, failureCommandArb, quiet, type Command } from "./commands.js";
import { checkAlways } from "./invariants.js";
import { World } from "./world.js";

// Long enough for a fault, a race and a crash to meet; short enough for 1,000 runs in seconds.
const MAX_COMMANDS = Number(process.env.MPSYNC_MODEL_COMMANDS ?? 24);

/** A policy and a command sequence. */
export const scenarioArb = fc.tuple(fc.constantFrom<ConflictPolicy>("merge", "keep-local", "keep-remote"), fc.array(commandArb, { maxLength: MAX_COMMANDS }));

/** Histories of failed and answer-lost requests meeting remote changes (merge policy). */
export const failureScenarioArb = fc.tuple(fc.constant<ConflictPolicy>("merge"), fc.array(failureCommandArb, { maxLength: 12 }));

/**
 * Runs one scenario; resolves to the violations found (empty: every invariant held).
 * `prepare` may sabotage the world's ports (the model's own sanity test).
 */
export async function runScenario(policy: ConflictPolicy, commands: readonly Command[], prepare?: (w: World) => void): Promise<string[]> {
  const w = new World(policy);
  prepare?.(w);
  await w.open();
  await w.step((s) => s.fullSync());
  for (const [i, c] of commands.entries()) {
    const found = [...(await applyCommand(w, c)), ...checkAlways(w)];
    if (found.length > 0) return found.map((v) => `after command ${i} (${c.k}): ${v}`);
  }
  const end = [...(await quiet(w)), ...checkAlways(w)];
  return end.map((v) => `at the end: ${v}`);
}
