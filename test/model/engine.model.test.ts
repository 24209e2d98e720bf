/**
 * Model-based property test of the whole engine: random interleavings of user edits, remote
 * generations and web edits, faults, crashes and sync steps against DesignSync on in-memory
 * ports. Invariants (invariants.ts) are checked after every command and after a final quiet.
 * `MPSYNC_SOAK_RUNS=50000 npx vitest run test/model` runs a soak.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ConflictPolicy } from "../../src/sync/model.js";
import { applyCommand, commandArb, quiet, type Command } from "./commands.js";
import { checkAlways } from "./invariants.js";
import { World } from "./world.js";

const DEFAULT_RUNS = 1000;
const RUNS = Number(process.env.MPSYNC_SOAK_RUNS ?? DEFAULT_RUNS);
const SEED = process.env.MPSYNC_MODEL_SEED === undefined ? undefined : Number(process.env.MPSYNC_MODEL_SEED);
// Long enough for a fault, a race and a crash to meet; short enough for 1,000 runs in seconds.
const MAX_COMMANDS = 24;

/** Runs one scenario; resolves to the violations found (empty: every invariant held). */
export async function runScenario(policy: ConflictPolicy, commands: readonly Command[]): Promise<string[]> {
  const w = new World(policy);
  await w.open();
  await w.step((s) => s.fullSync());
  for (const [i, c] of commands.entries()) {
    const found = [...(await applyCommand(w, c)), ...checkAlways(w)];
    if (found.length > 0) return found.map((v) => `after command ${i} (${c.k}): ${v}`);
  }
  const end = [...(await quiet(w)), ...checkAlways(w)];
  return end.map((v) => `at the end: ${v}`);
}

describe("engine model", () => {
  it(`keeps every invariant over ${RUNS} random histories`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<ConflictPolicy>("merge", "keep-local", "keep-remote"), fc.array(commandArb, { maxLength: MAX_COMMANDS }), async (policy, commands) => {
        expect(await runScenario(policy, commands)).toEqual([]);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 600_000);
});
