/**
 * Model-based property test of the whole engine: random interleavings of user edits, remote
 * generations and web edits, faults, crashes and sync steps against DesignSync on in-memory
 * ports. Invariants (invariants.ts) are checked after every command and after a final quiet.
 * `MPSYNC_SOAK_RUNS=50000 npx vitest run test/model` runs a soak; MPSYNC_MODEL_SEED replays.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failureScenarioArb, runScenario, scenarioArb } from "./scenario.js";

const DEFAULT_RUNS = 1000;
const RUNS = Number(process.env.MPSYNC_SOAK_RUNS ?? DEFAULT_RUNS);
const SEED = process.env.MPSYNC_MODEL_SEED === undefined ? undefined : Number(process.env.MPSYNC_MODEL_SEED);

describe("engine model", () => {
  it(`keeps every invariant over ${RUNS} random histories`, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ([policy, commands]) => {
        expect(await runScenario(policy, commands)).toEqual([]);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 600_000);

  it(`never takes a failed request for one that landed, over ${Math.ceil(RUNS / 2)} failure-heavy histories`, async () => {
    await fc.assert(
      fc.asyncProperty(failureScenarioArb, async ([policy, commands]) => {
        expect(await runScenario(policy, commands)).toEqual([]);
      }),
      { numRuns: Math.ceil(RUNS / 2), ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 600_000);
});
