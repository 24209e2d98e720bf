/** Where the last status poll of each design is remembered, across commands and restarts. */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { JsonMapFile } from "./json-map-file.js";

/** Last poll time per design (epoch milliseconds), and the last answer with its time. */
export interface PollLedger {
  get(editorId: string): Promise<number | undefined>;
  set(editorId: string, epochMs: number): Promise<void>;
  /** The newest answer any process recorded (a ledger without answers shares none). */
  getAnswer?(editorId: string): Promise<PollAnswer | undefined>;
  setAnswer?(editorId: string, answer: PollAnswer): Promise<void>;
}

/** One poll's answer, as JSON, and when it arrived (epoch milliseconds). */
export interface PollAnswer {
  at: number;
  answer: unknown;
}

/** A ledger that lives as long as the process (tests, one-shot library use). */
export function createMemoryPollLedger(): PollLedger {
  const times = new Map<string, number>();
  const answers = new Map<string, PollAnswer>();
  return {
    get: (editorId) => Promise.resolve(times.get(editorId)),
    set: (editorId, epochMs) => {
      times.set(editorId, epochMs);
      return Promise.resolve();
    },
    getAnswer: (editorId) => Promise.resolve(answers.get(editorId)),
    setAnswer: (editorId, answer) => {
      answers.set(editorId, newer(answers.get(editorId), answer));
      return Promise.resolve();
    },
  };
}

const pollMapSchema = z.record(z.string(), z.number().finite());
const answerMapSchema = z.record(z.string(), z.object({ at: z.number().finite(), answer: z.unknown() }));

function newer(a: PollAnswer | undefined, b: PollAnswer): PollAnswer {
  return a !== undefined && a.at > b.at ? a : b;
}

/** A ledger in a JSON file `{ "<editorId>": epochMs }`, shared by every mpsync process. */
export function createFilePollLedger(file: string): PollLedger {
  // Written after every status poll, before its answer is used: an fsync there delayed each new
  // version's pull by a disk flush. A power loss that undoes the last entry allows
  // one poll early, nothing worse.
  const store = new JsonMapFile(file, pollMapSchema, { durable: false });
  // Answers live beside the times (`polls.json` -> `polls.answers.json`): an older mpsync
  // reading the times file still finds the shape it knows.
  const answers = new JsonMapFile(join(dirname(file), basename(file).replace(/\.json$/, "") + ".answers.json"), answerMapSchema, { durable: false });
  return {
    get: async (editorId) => (await store.read())[editorId],
    set: (editorId, epochMs) => store.update((map) => ({ ...map, [editorId]: Math.max(epochMs, map[editorId] ?? 0) })),
    getAnswer: async (editorId) => (await answers.read())[editorId],
    setAnswer: (editorId, answer) => answers.update((map) => ({ ...map, [editorId]: newer(map[editorId], answer) })),
  };
}
