/**
 * createClient's options and their checks: a bad base URL, timeout or retry setting is a
 * TypeError at construction, never a surprise at the first request.
 */
import type { Dispatcher } from "undici";
import type { Logger } from "../log/logger.js";
import type { Clock } from "../core/clock.js";
import type { GenerationBudget } from "../scheduling/generation-budget.js";
import type { RequestQueue } from "../scheduling/request-queue.js";
import type { V3Client } from "./client-types.js";
import type { Timeouts } from "./http-transport.js";
import { DEFAULT_RETRY_OPTIONS, type RetryOptions } from "./retry-policy.js";

/** Options of createClient. */
export interface ClientOptions {
  /** Service address with its API prefix; paths are `${baseUrl}/v3/...`. */
  baseUrl: string;
  /** Sent as `x-mp-api-key`; never logged, never in an error. An empty key sends no header. */
  apiKey: string;
  /** The key's queue (RequestQueueRegistry.forKey). @default a private queue of concurrency 4 */
  queue?: RequestQueue;
  /** @default a silent logger */
  logger?: Logger;
  /** @default { connectMs: 10000, headersMs: 30000, bodyMs: 60000 } */
  timeouts?: Partial<Timeouts>;
  /** @default DEFAULT_RETRY_OPTIONS: { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30000, maxRetryAfterMs: 60000 } */
  retry?: Partial<RetryOptions>;
  /** Jitter source, uniform in [0, 1). @default Math.random */
  random?: () => number;
  /** Time of backoff waits and Retry-After dates. @default the system clock */
  clock?: Clock;
  /** @default `mpsync (node <version>)` */
  userAgent?: string;
  /** undici dispatcher; the client then does not close it. @default a keep-alive Agent with `timeouts` */
  dispatcher?: Dispatcher;
  /** When given, generation calls are checked against and recorded in it. @default none */
  budget?: GenerationBudget;
  /** Responses larger than this are INVALID_RESPONSE. @default 64 MiB */
  maxResponseBytes?: number;
  /** Names per files/read request (measured: BENCHMARKS.md). @default READ_FILES_BATCH_SIZE */
  readBatchSize?: number;
}

/** A V3Client that owns a connection pool. */
export type ClosableV3Client = V3Client & {
  /** Releases the connection pool the client created (a given dispatcher is left open). */
  close(): Promise<void>;
};

/** How long close() lets requests in flight finish before aborting them. */
export const CLOSE_GRACE_MS = 1000;

/** Files per files/read request: keeps each body small and lets batches run in parallel. */
export const READ_FILES_BATCH_SIZE = 100;
/** listAllVersions stops here even if the server keeps saying hasMore. */
export const MAX_LISTED_VERSIONS = 10_000;

export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`baseUrl must use http or https, got ${url.protocol}`);
  }
  return baseUrl.replace(/\/+$/, "");
}

export function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a finite number >= 0, got ${value}`);
  return value;
}

export function resolveRetry(retry: Partial<RetryOptions> | undefined): RetryOptions {
  const merged = { ...DEFAULT_RETRY_OPTIONS, ...retry };
  if (!Number.isInteger(merged.maxAttempts) || merged.maxAttempts < 1) {
    throw new TypeError(`retry.maxAttempts must be an integer >= 1, got ${merged.maxAttempts}`);
  }
  positive("retry.baseDelayMs", merged.baseDelayMs);
  positive("retry.maxDelayMs", merged.maxDelayMs);
  positive("retry.maxRetryAfterMs", merged.maxRetryAfterMs);
  return merged;
}
