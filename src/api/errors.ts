/** Errors of the v3 API: ApiError (status, endpoint, retryability) on the family's root. */
import { MpsyncError, type ErrorCode } from "../core/errors.js";

export { hasCode, MpsyncError, type ErrorCode } from "../core/errors.js";

/** A copy of the failed request with credentials removed. */
export interface RedactedRequest {
  method: string;
  url: string;
}

/** A failed v3 call: HTTP status, endpoint template, server message and retryability. */
export class ApiError extends MpsyncError {
  /** HTTP status, undefined for network failures and timeouts. */
  readonly status: number | undefined;
  /** Endpoint template, e.g. `GET /v3/designs/{editorId}/status`. */
  readonly endpoint: string;
  /** The service's own `error` string, when it sent one. */
  readonly serverMessage: string | undefined;
  readonly retryable: boolean;
  /** Delay the service asked for (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  readonly request: RedactedRequest;

  constructor(init: {
    code: ErrorCode;
    message: string;
    status?: number;
    endpoint: string;
    serverMessage?: string;
    retryable: boolean;
    retryAfterMs?: number;
    request: RedactedRequest;
    cause?: unknown;
    hint?: string;
  }) {
    super(init.code, init.message, { cause: init.cause, hint: init.hint });
    this.name = "ApiError";
    this.status = init.status;
    this.endpoint = init.endpoint;
    this.serverMessage = init.serverMessage;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.request = init.request;
  }
}

/** Maps an HTTP status to its stable code. */
export function errorCodeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return "BAD_REQUEST";
    case 401:
      return "UNAUTHORIZED";
    case 402:
      return "PAYMENT_REQUIRED";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 413:
      // A body past a limit: a PATCH is sent in smaller parts (sync/executor.ts), a batched read
      // is asked for in halves (client.ts readFiles).
      return "TOO_LARGE";
    case 409:
      // The emulator's answer to a prompt sent while generating (the real service: not documented).
      return "GENERATING";
    case 422:
      return "UNPROCESSABLE";
    case 429:
      return "RATE_LIMITED";
    default:
      return status >= 500 ? "SERVER_ERROR" : "BAD_REQUEST";
  }
}
