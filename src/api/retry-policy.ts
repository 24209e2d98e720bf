/**
 * The one retry policy of the v3 client (Octokit / stripe-node style): a pure function of the
 * failed attempt, so every rule is covered by a table-driven test. Its waits are the shared
 * backoff's (`scheduling/backoff.ts`, full jitter).
 */
import { fullJitterMs, REQUEST_BACKOFF } from "../scheduling/backoff.js";
import type { ErrorCode } from "./errors.js";

/** Retry tuning; every field has a default in DEFAULT_RETRY_OPTIONS. */
export interface RetryOptions {
  /** Attempts in total, the first one included. @default 5 */
  maxAttempts: number;
  /** Backoff base: attempt n waits up to baseDelayMs * 2**n (`scheduling/backoff.ts`). @default 500 */
  baseDelayMs: number;
  /** Cap of one backoff wait. @default 30000 */
  maxDelayMs: number;
  /** Cap of a Retry-After wait, so a bogus header cannot freeze the queue for hours. @default 60000 */
  maxRetryAfterMs: number;
}

/** Defaults of RetryOptions. */
export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: REQUEST_BACKOFF.baseMs,
  maxDelayMs: REQUEST_BACKOFF.maxMs,
  // A Retry-After of minutes would freeze every folder of the key: wait at most a minute, then
  // try again (another 429 just waits again). Shown as a rate_limited event.
  maxRetryAfterMs: 60_000,
});

/** What the policy needs to know about a failed attempt (an ApiError fits). */
export interface FailedAttempt {
  /** HTTP status; undefined for network failures and timeouts. */
  status?: number | undefined;
  code: ErrorCode;
  retryAfterMs?: number | undefined;
}

/** Input of decideRetry. */
export interface RetryInput {
  /** 0-based index of the attempt that just failed. */
  attempt: number;
  error: FailedAttempt;
  /** True when repeating the call cannot do anything twice (GETs, reads, PATCH, publish). */
  idempotent: boolean;
  /**
   * False only when the request certainly never reached the server (connection refused,
   * connect timeout): then even a generation-starting call may be repeated. @default true
   */
  sent?: boolean;
  options: RetryOptions;
  /** Uniform in [0, 1), for the jitter. */
  random: () => number;
}

/** Outcome of decideRetry. */
export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

const NEVER_RETRIED_STATUSES = new Set([400, 401, 402, 403, 404, 409, 422]);

/** True when the failure may go away by itself and repeating the call is safe. */
export function isRetryableFailure(error: FailedAttempt, idempotent: boolean, sent = true): boolean {
  if (error.code === "INVALID_RESPONSE") return false;
  const { status } = error;
  if (status !== undefined) {
    if (NEVER_RETRIED_STATUSES.has(status)) return false;
    // A 429 is a refusal before any work was done, so even a generation call may be repeated.
    if (status === 429) return true;
    return status >= 500 && idempotent;
  }
  if (error.code !== "NETWORK" && error.code !== "TIMEOUT") return false;
  return idempotent || !sent;
}

/** Decides whether a failed attempt is repeated, and after how long. */
export function decideRetry(input: RetryInput): RetryDecision {
  const { attempt, error, idempotent, options, random } = input;
  if (!isRetryableFailure(error, idempotent, input.sent ?? true)) return { retry: false };
  if (attempt + 1 >= options.maxAttempts) return { retry: false };
  if (error.retryAfterMs !== undefined) {
    return { retry: true, delayMs: Math.min(Math.max(0, error.retryAfterMs), options.maxRetryAfterMs) };
  }
  return { retry: true, delayMs: fullJitterMs(attempt, { baseMs: options.baseDelayMs, maxMs: options.maxDelayMs }, random()) };
}

/**
 * Parses a Retry-After header: delay-seconds or an HTTP-date, relative to `nowMs`. Fractional
 * seconds are accepted (the emulator uses them for scaled-down tests). Undefined when absent
 * or unparsable; a date in the past gives 0.
 */
export function parseRetryAfter(header: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const value = (typeof header === "string" ? header : header?.[0])?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // Date.parse also accepts bare numbers and odd forms; require something date-like.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
