/**
 * The service allows 1000 generations per 10 hours per key (docs/service-facts.md#limits) and does not
 * document its answer past that, so mpsync counts locally and refuses before the service does.
 */
import * as z from "zod";
import { MpsyncError } from "../core/errors.js";
import type { Clock } from "../core/clock.js";
import { JsonMapFile } from "./json-map-file.js";
import { hashApiKey } from "./key-hash.js";

/** Generations allowed per window and key. */
export const GENERATION_LIMIT = 1000;
/** The window of GENERATION_LIMIT: 10 hours. */
export const GENERATION_WINDOW_MS = 10 * 60 * 60 * 1000;

/** Send times of generation calls per key hash (epoch milliseconds). */
export interface GenerationLedger {
  /** Send times recorded for `keyHash`, any order. */
  list(keyHash: string): Promise<number[]>;
  /** Records a send time and forgets those before `forgetBefore`. */
  add(keyHash: string, epochMs: number, forgetBefore: number): Promise<void>;
}

/** A ledger that lives as long as the process. */
export function createMemoryGenerationLedger(): GenerationLedger {
  const times = new Map<string, number[]>();
  return {
    list: (keyHash) => Promise.resolve([...(times.get(keyHash) ?? [])]),
    add: (keyHash, epochMs, forgetBefore) => {
      times.set(keyHash, [...(times.get(keyHash) ?? []).filter((t) => t >= forgetBefore), epochMs]);
      return Promise.resolve();
    },
  };
}

const generationMapSchema = z.record(z.string(), z.array(z.number().finite()));

/** A ledger in a JSON file `{ "<sha256 of key>": [epochMs, ...] }` shared by every mpsync process. */
export function createFileGenerationLedger(file: string): GenerationLedger {
  const store = new JsonMapFile(file, generationMapSchema);
  return {
    list: async (keyHash) => (await store.read())[keyHash] ?? [],
    add: (keyHash, epochMs, forgetBefore) =>
      store.update((map) => ({
        ...map,
        [keyHash]: [...(map[keyHash] ?? []).filter((t) => t >= forgetBefore), epochMs],
      })),
  };
}

/** Options of GenerationBudget. */
export interface GenerationBudgetOptions {
  /** The key whose generations are counted; only its sha256 is kept. */
  apiKey: string;
  ledger: GenerationLedger;
  clock: Clock;
  /** @default GENERATION_LIMIT (1000) */
  limit?: number;
  /** @default GENERATION_WINDOW_MS (10 hours) */
  windowMs?: number;
}

/** Formats epoch milliseconds as local `YYYY-MM-DD HH:MM`. */
export function formatLocalTime(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Counts generation calls of one key in a sliding window. */
export class GenerationBudget {
  readonly #keyHash: string;
  readonly #ledger: GenerationLedger;
  readonly #clock: Clock;
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(options: GenerationBudgetOptions) {
    this.#keyHash = hashApiKey(options.apiKey);
    this.#ledger = options.ledger;
    this.#clock = options.clock;
    this.#limit = options.limit ?? GENERATION_LIMIT;
    this.#windowMs = options.windowMs ?? GENERATION_WINDOW_MS;
    if (!Number.isInteger(this.#limit) || this.#limit < 1) throw new TypeError(`limit must be an integer >= 1`);
    if (!(this.#windowMs > 0)) throw new TypeError(`windowMs must be > 0`);
  }

  /** Generations still allowed now. */
  async remaining(): Promise<number> {
    return Math.max(0, this.#limit - (await this.#inWindow()).length);
  }

  /** Epoch milliseconds at which one more generation is allowed; undefined when one is allowed now. */
  async freesAt(): Promise<number | undefined> {
    const times = await this.#inWindow();
    if (times.length < this.#limit) return undefined;
    // Sorted ascending: once the (excess+1)th oldest send leaves the window, one slot is free.
    const pivot = times[times.length - this.#limit];
    return pivot === undefined ? undefined : pivot + this.#windowMs;
  }

  /** Throws MpsyncError GENERATION_BUDGET when the budget is used up. */
  async check(): Promise<void> {
    const at = await this.freesAt();
    if (at === undefined) return;
    const hours = Math.round(this.#windowMs / 3_600_000);
    throw new MpsyncError(
      "GENERATION_BUDGET",
      `generation budget used up: ${this.#limit} generations in the last ${hours} hours for this API key; ` +
        `it frees up at ${formatLocalTime(at)} (local time)`,
      { hint: "wait until then, or ask the service for a higher limit" },
    );
  }

  /** Records a generation call that was sent (call it even when the response was an error). */
  async record(): Promise<void> {
    const now = this.#clock.now();
    await this.#ledger.add(this.#keyHash, now, now - this.#windowMs);
  }

  async #inWindow(): Promise<number[]> {
    const since = this.#clock.now() - this.#windowMs;
    const times = await this.#ledger.list(this.#keyHash);
    return times.filter((t) => t > since).sort((a, b) => a - b);
  }
}
