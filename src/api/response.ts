/**
 * Turns one HTTP outcome into a validated value or an ApiError whose one-line message names
 * the endpoint template. Nothing here throws anything but ApiError.
 */
import { STATUS_CODES } from "node:http";
import type { z } from "zod";
import { scrubSecrets } from "../log/logger.js";
import { ApiError, errorCodeForStatus, type ErrorCode, type RedactedRequest } from "./errors.js";
import type { HttpResponse, TransportFailure } from "./http-transport.js";
import { isRetryableFailure, parseRetryAfter } from "./retry-policy.js";
import { errorBodySchema } from "./schemas.js";

/** What an error needs to say which call failed. */
export interface CallContext {
  /** Endpoint template, e.g. `GET /v3/designs/{editorId}/status`. */
  endpoint: string;
  /** What the call does, in words (`ENDPOINTS`' `action`): "read the design's status". */
  action: string;
  request: RedactedRequest;
  idempotent: boolean;
  /** Values scrubbed from any text the server sends back (the API key). */
  secrets: readonly string[];
}

const HINTS: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: "API key missing or invalid: set MP_API_KEY or run mpsync login",
  PAYMENT_REQUIRED: "out of credits: top up the account; reads and pushes keep working",
  FORBIDDEN: "the API key's account has no access to this design or artifact",
  NOT_FOUND: "check the design id or URL, and that the design still exists",
  RATE_LIMITED: "the service is rate limiting this API key; wait and try again",
  NETWORK: "check the network connection and baseUrl",
  TIMEOUT: "the service is slow or unreachable; try again later",
  INVALID_RESPONSE: "check that baseUrl is the service address with its /api prefix",
};

const MAX_SERVER_MESSAGE_CHARS = 300;

/** "could not read the design's status": what failed; the template stays in `endpoint`. */
function couldNot(ctx: CallContext): string {
  return `could not ${ctx.action}`;
}

/** An ApiError for a response that is not what the endpoint promises. */
export function invalidResponse(ctx: CallContext, why: string, status?: number): ApiError {
  return new ApiError({
    code: "INVALID_RESPONSE",
    message: `${couldNot(ctx)}: malformed response: ${why}`,
    ...(status === undefined ? {} : { status }),
    endpoint: ctx.endpoint,
    retryable: false,
    request: ctx.request,
    hint: HINTS.INVALID_RESPONSE,
  });
}

function describeIssue(issues: readonly z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (first === undefined) return "unexpected shape";
  const path = first.path.map(String).join(".") || "(body)";
  const message = first.message.replace(/^Invalid input: /, "");
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return `${path}: ${message}${more}`;
}

function parseJsonBody(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

function isHtml(res: HttpResponse): boolean {
  const type = String(res.headers["content-type"] ?? "").toLowerCase();
  return type.includes("text/html") || /^\s*<(!doctype|html)/i.test(res.body?.slice(0, 64) ?? "");
}

/** Validates a 2xx response against `schema`. */
export function parseSuccess<T>(ctx: CallContext, res: HttpResponse, schema: z.ZodType<T>): T {
  if (res.bodyProblem === "too-large") throw tooLargeResponse(ctx, res.status);
  if (res.body === undefined) return fail(ctx, "body is not valid JSON (not UTF-8)", res.status);
  if (isHtml(res)) return fail(ctx, "got an HTML page instead of JSON", res.status);
  const json = parseJsonBody(res.body);
  if (!json.ok) return fail(ctx, res.body.length === 0 ? "empty body" : "body is not valid JSON", res.status);
  const parsed = schema.safeParse(json.value);
  if (!parsed.success) return fail(ctx, describeIssue(parsed.error.issues), res.status);
  return parsed.data;
}

/**
 * A 2xx answer past the client's size cap: TOO_LARGE, like a 413, so a batched read can ask for
 * fewer files at once (client.readFiles).
 */
function tooLargeResponse(ctx: CallContext, status: number): ApiError {
  return new ApiError({
    code: "TOO_LARGE",
    message: `${couldNot(ctx)}: response body larger than the size cap`,
    status,
    endpoint: ctx.endpoint,
    retryable: false,
    request: ctx.request,
  });
}

function fail(ctx: CallContext, why: string, status: number): never {
  throw invalidResponse(ctx, why, status);
}

function serverMessageOf(ctx: CallContext, res: HttpResponse): string | undefined {
  if (res.body === undefined || isHtml(res)) return undefined;
  const json = parseJsonBody(res.body);
  if (!json.ok) return undefined;
  const parsed = errorBodySchema.safeParse(json.value);
  if (!parsed.success) return undefined;
  const oneLine = scrubSecrets(parsed.data.error.replace(/\s+/g, " ").trim(), ctx.secrets);
  return oneLine.length > MAX_SERVER_MESSAGE_CHARS ? `${oneLine.slice(0, MAX_SERVER_MESSAGE_CHARS)}...` : oneLine;
}

/** An ApiError for a response with status >= 300. */
export function errorFromResponse(ctx: CallContext, res: HttpResponse, nowMs: number): ApiError {
  const { status } = res;
  if (status < 400) return invalidResponse(ctx, `unexpected status ${status}`, status);
  const code = errorCodeForStatus(status);
  const serverMessage = serverMessageOf(ctx, res);
  const retryAfterMs = parseRetryAfter(res.headers["retry-after"], nowMs);
  const why = serverMessage !== undefined && serverMessage !== "" ? serverMessage : (STATUS_CODES[status] ?? "error");
  return new ApiError({
    code,
    message: `${couldNot(ctx)}: ${status} ${why}`,
    status,
    endpoint: ctx.endpoint,
    ...(serverMessage === undefined ? {} : { serverMessage }),
    retryable: isRetryableFailure({ status, code }, ctx.idempotent),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    request: ctx.request,
    hint: HINTS[code],
  });
}

/** An ApiError for an attempt that got no response. */
export function errorFromTransport(ctx: CallContext, failure: TransportFailure): ApiError {
  const code: ErrorCode = failure.kind === "timeout" ? "TIMEOUT" : "NETWORK";
  return new ApiError({
    code,
    message: `${couldNot(ctx)}: ${failure.reason}`,
    endpoint: ctx.endpoint,
    retryable: isRetryableFailure({ code }, ctx.idempotent, failure.sent),
    request: ctx.request,
    cause: failure,
    hint: HINTS[code],
  });
}
