/**
 * Fault injection: random faults (latency, error rate, drop rate) from a seeded RNG, and
 * one-off faults queued with failNext. Only decides; the server applies the decision.
 */
import type { FaultMatch, FaultOptions, InjectedFault } from "./types.js";

interface FailRule {
  match: FaultMatch;
  fault: InjectedFault;
  remaining: number;
}

/** What the random faults decided for one request. */
export type RandomFault = { kind: "drop" } | { kind: "error"; status: 500 | 503 } | undefined;

/** mulberry32: tiny, fast and good enough to make fault sequences reproducible from a seed. */
export function createRng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** True when `match` selects a request. Methods compare case-insensitively. */
export function matchesRequest(match: FaultMatch, method: string, path: string): boolean {
  if (match.method !== undefined && match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (match.path === undefined) return true;
  return typeof match.path === "string" ? match.path === path : match.path.test(path);
}

/** The emulator's fault configuration and queue of one-off faults. */
export class FaultState {
  #options: FaultOptions = {};
  #rng: () => number = Math.random;
  #rules: FailRule[] = [];
  /** Requests answered with a dropped connection and applied only later (`late` faults), oldest first. */
  #late: Array<() => Promise<unknown>> = [];

  constructor(options: FaultOptions = {}) {
    this.set(options);
  }

  /** Current random-fault options. */
  options(): Readonly<FaultOptions> {
    return { ...this.#options };
  }

  /** Merges `partial` into the options; a new seed restarts the RNG sequence. */
  set(partial: FaultOptions): void {
    validateFaultOptions(partial);
    this.#options = { ...this.#options, ...partial };
    if (partial.seed !== undefined) this.#rng = createRng(partial.seed);
  }

  /** Queues `fault` for the next `times` matching requests. */
  failNext(match: FaultMatch, fault: InjectedFault, times = 1): void {
    if (!Number.isInteger(times) || times < 1) throw new RangeError("times must be a positive integer");
    this.#rules.push({ match, fault, remaining: times });
  }

  /** Keeps a request to apply later (a `late` fault). */
  holdLate(apply: () => Promise<unknown>): void {
    this.#late.push(apply);
  }

  /** Applies the held requests in order; resolves how many there were. */
  async applyLate(): Promise<number> {
    const held = this.#late.splice(0);
    for (const apply of held) await apply();
    return held.length;
  }

  /** Removes every random fault and queued one-off fault. */
  clear(): void {
    this.#options = {};
    this.#rng = Math.random;
    this.#rules = [];
  }

  /** Takes the first queued fault matching the request, if any (oldest rule first). */
  takeInjected(method: string, path: string): InjectedFault | undefined {
    const index = this.#rules.findIndex((rule) => matchesRequest(rule.match, method, path));
    const rule = this.#rules[index];
    if (rule === undefined) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.#rules.splice(index, 1);
    return rule.fault;
  }

  /** Fixed latency to add before handling. */
  latencyMs(): number {
    return this.#options.latencyMs ?? 0;
  }

  /** Time a new connection takes before its first request (see FaultOptions.handshakeMs). */
  handshakeMs(): number {
    return this.#options.handshakeMs ?? 0;
  }

  /** Rolls the random faults for one request. */
  rollRandom(): RandomFault {
    const { dropRate = 0, errorRate = 0 } = this.#options;
    if (dropRate > 0 && this.#rng() < dropRate) return { kind: "drop" };
    if (errorRate > 0 && this.#rng() < errorRate) return { kind: "error", status: this.#rng() < 0.5 ? 500 : 503 };
    return undefined;
  }
}

function validateFaultOptions(options: FaultOptions): void {
  for (const key of ["errorRate", "dropRate"] as const) {
    const value = options[key];
    if (value !== undefined && !(value >= 0 && value <= 1)) throw new RangeError(`${key} must be between 0 and 1`);
  }
  for (const key of ["latencyMs", "handshakeMs"] as const) {
    const value = options[key];
    if (value !== undefined && !(value >= 0)) throw new RangeError(`${key} must be >= 0`);
  }
}
