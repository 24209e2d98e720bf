import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { DEFAULT_RETRY_OPTIONS, decideRetry, isRetryableFailure, parseRetryAfter, type FailedAttempt, type RetryDecision } from "../../src/api/retry-policy.js";

const options = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
const half = (): number => 0.5;

describe("decideRetry", () => {
  const cases: [string, FailedAttempt, { idempotent: boolean; sent?: boolean; attempt?: number }, RetryDecision][] = [
    ["400", { status: 400, code: "BAD_REQUEST" }, { idempotent: true }, { retry: false }],
    ["401", { status: 401, code: "UNAUTHORIZED" }, { idempotent: true }, { retry: false }],
    ["402", { status: 402, code: "PAYMENT_REQUIRED" }, { idempotent: true }, { retry: false }],
    ["403", { status: 403, code: "FORBIDDEN" }, { idempotent: true }, { retry: false }],
    ["404", { status: 404, code: "NOT_FOUND" }, { idempotent: true }, { retry: false }],
    ["409", { status: 409, code: "GENERATING" }, { idempotent: true }, { retry: false }],
    ["422", { status: 422, code: "UNPROCESSABLE" }, { idempotent: true }, { retry: false }],
    ["invalid response", { status: 200, code: "INVALID_RESPONSE" }, { idempotent: true }, { retry: false }],
    ["500 idempotent", { status: 500, code: "SERVER_ERROR" }, { idempotent: true }, { retry: true, delayMs: 50 }],
    ["500 second attempt", { status: 500, code: "SERVER_ERROR" }, { idempotent: true, attempt: 1 }, { retry: true, delayMs: 100 }],
    ["500 fourth attempt", { status: 502, code: "SERVER_ERROR" }, { idempotent: true, attempt: 3 }, { retry: true, delayMs: 400 }],
    ["500 attempts used up", { status: 500, code: "SERVER_ERROR" }, { idempotent: true, attempt: 4 }, { retry: false }],
    ["500 generation", { status: 500, code: "SERVER_ERROR" }, { idempotent: false }, { retry: false }],
    ["503 Retry-After", { status: 503, code: "SERVER_ERROR", retryAfterMs: 2000 }, { idempotent: true }, { retry: true, delayMs: 2000 }],
    ["503 generation", { status: 503, code: "SERVER_ERROR", retryAfterMs: 2000 }, { idempotent: false }, { retry: false }],
    ["429 Retry-After", { status: 429, code: "RATE_LIMITED", retryAfterMs: 3000 }, { idempotent: true }, { retry: true, delayMs: 3000 }],
    ["429 Retry-After capped", { status: 429, code: "RATE_LIMITED", retryAfterMs: 60_000 }, { idempotent: true }, { retry: true, delayMs: 5000 }],
    ["429 generation", { status: 429, code: "RATE_LIMITED", retryAfterMs: 10 }, { idempotent: false }, { retry: true, delayMs: 10 }],
    ["429 no header", { status: 429, code: "RATE_LIMITED" }, { idempotent: false }, { retry: true, delayMs: 50 }],
    ["network idempotent", { code: "NETWORK" }, { idempotent: true }, { retry: true, delayMs: 50 }],
    ["timeout idempotent", { code: "TIMEOUT" }, { idempotent: true }, { retry: true, delayMs: 50 }],
    ["network generation maybe sent", { code: "NETWORK" }, { idempotent: false }, { retry: false }],
    ["timeout generation sent", { code: "TIMEOUT" }, { idempotent: false, sent: true }, { retry: false }],
    ["refused generation never sent", { code: "NETWORK" }, { idempotent: false, sent: false }, { retry: true, delayMs: 50 }],
    ["other codes", { code: "INTERNAL" }, { idempotent: true }, { retry: false }],
  ];
  it.each(cases)("%s", (_name, error, call, expected) => {
    const input = { attempt: call.attempt ?? 0, error, idempotent: call.idempotent, options, random: half };
    expect(decideRetry(call.sent === undefined ? input : { ...input, sent: call.sent })).toEqual(expected);
  });

  it("accepts an ApiError as the failure", () => {
    const error = new ApiError({
      code: "SERVER_ERROR",
      message: "x",
      status: 500,
      endpoint: "GET /v3/health",
      retryable: true,
      request: { method: "GET", url: "http://x/v3/health" },
    });
    expect(decideRetry({ attempt: 0, error, idempotent: true, options, random: () => 0 })).toEqual({ retry: true, delayMs: 0 });
  });

  it("waits the shared backoff's full jitter, capped at maxDelayMs", () => {
    const error: FailedAttempt = { status: 503, code: "SERVER_ERROR" };
    const wait = (attempt: number, random: number): RetryDecision =>
      decideRetry({ attempt, error, idempotent: true, options: { ...options, maxAttempts: 20 }, random: () => random });
    expect(wait(0, 0.5)).toEqual({ retry: true, delayMs: 50 });
    expect(wait(3, 0.5)).toEqual({ retry: true, delayMs: 400 });
    expect(wait(6, 0.5)).toEqual({ retry: true, delayMs: 500 });
    expect(wait(6, 0)).toEqual({ retry: true, delayMs: 0 });
  });

  it("has the documented defaults", () => {
    expect(DEFAULT_RETRY_OPTIONS).toEqual({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 });
  });

  it("documents each option with its real default (the @default beside each field)", () => {
    const source = readFileSync(join(import.meta.dirname, "../../src/api/retry-policy.ts"), "utf8");
    const fields = source.slice(source.indexOf("export interface RetryOptions"), source.indexOf("/** Defaults of RetryOptions"));
    const documented = Object.fromEntries([...fields.matchAll(/@default (\d+) \*\/\n\s+(\w+): number;/g)].map((m) => [m[2], Number(m[1])]));
    expect(documented).toEqual(DEFAULT_RETRY_OPTIONS);
    const clientDoc = /@default DEFAULT_RETRY_OPTIONS: (\{[^}]*\})/.exec(
      readFileSync(join(import.meta.dirname, "../../src/api/client-options.ts"), "utf8"),
    )?.[1];
    expect(JSON.parse(clientDoc?.replace(/(\w+):/g, '"$1":') ?? "null")).toEqual(DEFAULT_RETRY_OPTIONS);
  });

  it("isRetryableFailure matches the table for a 429 on a generation call", () => {
    expect(isRetryableFailure({ status: 429, code: "RATE_LIMITED" }, false)).toBe(true);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  it.each([
    [undefined, undefined],
    ["", undefined],
    ["abc", undefined],
    ["-5", undefined],
    ["0", 0],
    ["120", 120_000],
    [" 7 ", 7000],
    ["0.05", 50],
    ["Wed, 01 Jan 2025 12:00:30 GMT", 30_000],
    ["Wed, 01 Jan 2025 11:59:00 GMT", 0],
    ["Thu, 99 Foo 2025 12:00:30 GMT", undefined],
  ] as const)("%j -> %j", (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });

  it("takes the first of repeated headers", () => {
    expect(parseRetryAfter(["2", "9"], now)).toBe(2000);
  });
});
