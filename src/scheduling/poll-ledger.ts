/** Where the last status poll of each design is remembered, across commands and restarts. */
import { z } from "zod";
import { JsonMapFile } from "./json-map-file.js";

/** Last poll time per design (epoch milliseconds). */
export interface PollLedger {
  get(editorId: string): Promise<number | undefined>;
  set(editorId: string, epochMs: number): Promise<void>;
}

/** A ledger that lives as long as the process (tests, one-shot library use). */
export function createMemoryPollLedger(): PollLedger {
  const times = new Map<string, number>();
  return {
    get: (editorId) => Promise.resolve(times.get(editorId)),
    set: (editorId, epochMs) => {
      times.set(editorId, epochMs);
      return Promise.resolve();
    },
  };
}

const pollMapSchema = z.record(z.string(), z.number().finite());

/** A ledger in a JSON file `{ "<editorId>": epochMs }`, shared by every mpsync process. */
export function createFilePollLedger(file: string): PollLedger {
  // Written after every status poll, before its answer is used: an fsync there delayed each new
  // version's pull by a disk flush. A power loss that undoes the last entry allows
  // one poll early, nothing worse.
  const store = new JsonMapFile(file, pollMapSchema, { durable: false });
  return {
    get: async (editorId) => (await store.read())[editorId],
    set: (editorId, epochMs) => store.update((map) => ({ ...map, [editorId]: Math.max(epochMs, map[editorId] ?? 0) })),
  };
}
