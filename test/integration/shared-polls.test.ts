/**
 * Two processes' worth of mpsync (two Runtimes: each its own scheduler, undici client and file
 * ledger, on one state folder) following one design on the emulator: their status polls are
 * claimed through `polls.claims/`, so at the emulator there is one status request per round,
 * never two at once, and every one arrives within the limit (the emulator's strict poll mode
 * answers 429 to a poll inside it). Counts, not times.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseSharedStatus } from "../../src/api/schemas.js";
import type { RequestLogEntry } from "../../src/emulator/types.js";
import type { Runtime } from "../../src/runtime.js";
import { startHarness, type Harness } from "../support/harness.js";

let h: Harness | undefined;
let second: Runtime | undefined;
afterEach(async () => {
  await second?.close();
  second = undefined;
  await h?.close();
  h = undefined;
});

describe("status polls shared by two runtimes on one state folder", () => {
  it("both due at once: one status request; then one per round, none refused, and both hear every round", async () => {
    // An interval of 1 s, not less: "one request" holds only while the second runtime looks
    // within an interval of the first's poll, and on a loaded 2-core machine a step of this
    // test can take a few hundred milliseconds (0.2 s made it fail under load).
    h = await startHarness({ syncrc: { pollIntervalSec: 1 }, emulator: { strictPoll: true, minPollIntervalMs: 800 } });
    const harness = h;
    second = await harness.newRuntime();
    const watchers = await Promise.all(
      [harness.runtime, second].map(async (runtime) => {
        const client = await runtime.client();
        const follower = (await runtime.pollScheduler()).follow(harness.editorId, parseSharedStatus);
        return () => follower.next(() => client.getStatus(harness.editorId));
      }),
    );
    harness.emu.control.resetRequestLog();
    const isStatus = (e: RequestLogEntry): boolean => e.path === `/v3/designs/${harness.editorId}/status`;

    const first = await Promise.all(watchers.map((next) => next()));
    expect(first.map((s) => s.activeArtifactId)).toEqual([first[0]?.activeArtifactId, first[0]?.activeArtifactId]);
    expect(harness.emu.control.countRequests(isStatus)).toBe(1);

    const ROUNDS = 4;
    const heard = await Promise.all(
      watchers.map(async (next) => {
        let answers = 0;
        for (let i = 0; i < ROUNDS; i++) if ((await next()).activeArtifactId !== undefined) answers++;
        return answers;
      }),
    );
    expect(heard).toEqual([ROUNDS, ROUNDS]);
    const polls = harness.emu.control.requests().filter(isStatus);
    // One poll per round (and one for a round a watcher began a little after the other), not one per watcher.
    expect(polls.length).toBeLessThanOrEqual(ROUNDS + 2);
    expect(polls.filter((p) => p.status !== 200)).toEqual([]);
  });
});
