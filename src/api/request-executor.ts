/**
 * Runs one call: each HTTP attempt is one task of the key's queue, backoff waits happen outside
 * the queue (they must not hold a concurrency slot), and a 429 pauses the whole queue.
 */
import type { Dispatcher } from "undici";
import type { Logger } from "../log/logger.js";
import type { Clock } from "../core/clock.js";
import type { GenerationBudget } from "../scheduling/generation-budget.js";
import type { RequestQueue } from "../scheduling/request-queue.js";
import { API_KEY_HEADER } from "./schemas.js";
import { ApiError } from "./errors.js";
import { callContext, type Endpoint } from "./endpoints.js";
import { sendHttpRequest, TransportFailure, type HttpResponse, type Timeouts } from "./http-transport.js";
import { errorFromResponse, errorFromTransport, parseSuccess, type CallContext } from "./response.js";
import { decideRetry, type RetryOptions } from "./retry-policy.js";

/** Everything the executor needs, wired by createClient. */
export interface ExecutorDeps {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  dispatcher: Dispatcher;
  queue: RequestQueue;
  logger: Logger;
  clock: Clock;
  random: () => number;
  timeouts: Timeouts;
  retry: RetryOptions;
  maxBodyBytes: number;
  budget: GenerationBudget | undefined;
}

/** One call, ready to send. */
export interface PreparedCall<T> {
  endpoint: Endpoint<T>;
  /** Concrete path, e.g. `/v3/designs/abc/status`. */
  path: string;
  query?: Record<string, string> | undefined;
  /** Already validated against the request schema. */
  body?: unknown;
  /** True when the call starts an AI generation (counted against the budget, never repeated once sent). */
  generation?: boolean;
  signal?: AbortSignal | undefined;
}

type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; error: ApiError; sent: boolean };

/** Sends calls with the retry policy, the queue and the generation budget. */
export class RequestExecutor {
  readonly #deps: ExecutorDeps;
  /** When the last attempt ended (clock.monotonic(); -Infinity before the first). */
  #lastActivity = Number.NEGATIVE_INFINITY;
  #inFlight = 0;

  constructor(deps: ExecutorDeps) {
    this.#deps = deps;
  }

  /** True when no attempt ran in the last `ms` (none in flight either). */
  idleLongerThan(ms: number): boolean {
    return this.#inFlight === 0 && this.#deps.clock.monotonic() - this.#lastActivity > ms;
  }

  /** Runs `call` to a validated value, or rejects with ApiError (or the signal's reason). */
  async execute<T>(call: PreparedCall<T>): Promise<T> {
    const { endpoint, signal } = call;
    const ctx = this.#context(call);
    if (call.generation === true) await this.#deps.budget?.check();
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const outcome = await this.#attempt(call, ctx, attempt);
      // A request that never left, or a refusal (4xx: 429, 402 out of credits, 400, ...),
      // cannot have started anything; a 5xx or a lost answer may have.
      const reachedServer = outcome.ok || (outcome.sent && !isRefusal(outcome.error.status));
      if (call.generation === true && reachedServer) await this.#recordGeneration(ctx);
      if (outcome.ok) return outcome.value;
      const { error, sent } = outcome;
      const decision = decideRetry({
        attempt,
        error,
        idempotent: endpoint.idempotent,
        sent,
        options: this.#deps.retry,
        random: this.#deps.random,
      });
      if (error.status === 429) this.#pauseQueue(error, decision.retry ? decision.delayMs : undefined);
      if (!decision.retry) throw error;
      // Each retry is detail (-v, --log-file): the daemon reports a failing cycle once, and
      // "sync resumed" when it works again, instead of a line per attempt.
      this.#deps.logger.debug(
        { endpoint: ctx.endpoint, code: error.code, status: error.status, attempt: attempt + 1, delayMs: decision.delayMs },
        `${error.message}; retrying in ${decision.delayMs} ms`,
      );
      await this.#deps.clock.sleep(decision.delayMs, signal);
    }
  }

  async #recordGeneration(ctx: CallContext): Promise<void> {
    try {
      await this.#deps.budget?.record();
    } catch (err) {
      // The call itself went through; a ledger that cannot be written must not turn it into a failure.
      this.#deps.logger.warn({ endpoint: ctx.endpoint, err }, "could not record the generation in the local budget");
    }
  }

  #pauseQueue(error: ApiError, delayMs: number | undefined): void {
    const ms = delayMs ?? Math.min(error.retryAfterMs ?? 0, this.#deps.retry.maxRetryAfterMs);
    if (ms > 0) this.#deps.queue.pauseFor(ms);
  }

  #context(call: PreparedCall<unknown>): CallContext {
    const url = new URL(`${this.#deps.baseUrl}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    return callContext(call.endpoint, url.toString(), this.#deps.apiKey.length > 0 ? [this.#deps.apiKey] : []);
  }

  #headers(hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: "application/json", "user-agent": this.#deps.userAgent };
    if (this.#deps.apiKey !== "") headers[API_KEY_HEADER] = this.#deps.apiKey;
    if (hasBody) headers["content-type"] = "application/json";
    return headers;
  }

  async #attempt<T>(call: PreparedCall<T>, ctx: CallContext, attempt: number): Promise<AttemptOutcome<T>> {
    const started = this.#deps.clock.monotonic();
    let res: HttpResponse;
    this.#inFlight += 1;
    try {
      res = await this.#deps.queue.run(
        () =>
          sendHttpRequest(this.#deps.dispatcher, {
            method: call.endpoint.method,
            url: ctx.request.url,
            headers: this.#headers(call.body !== undefined),
            body: call.body === undefined ? undefined : JSON.stringify(call.body),
            signal: call.signal,
            timeouts: this.#deps.timeouts,
            maxBodyBytes: this.#deps.maxBodyBytes,
          }),
        { signal: call.signal },
      );
    } catch (err) {
      if (!(err instanceof TransportFailure)) throw err;
      const error = errorFromTransport(ctx, err);
      this.#logAttempt(ctx, attempt, started, error.code);
      return { ok: false, error, sent: err.sent };
    } finally {
      this.#inFlight -= 1;
      this.#lastActivity = this.#deps.clock.monotonic();
    }
    this.#logAttempt(ctx, attempt, started, res.status);
    if (res.status < 200 || res.status >= 300) {
      return { ok: false, error: errorFromResponse(ctx, res, this.#deps.clock.now()), sent: true };
    }
    try {
      return { ok: true, value: parseSuccess(ctx, res, call.endpoint.response) };
    } catch (err) {
      if (err instanceof ApiError) return { ok: false, error: err, sent: true };
      throw err;
    }
  }

  #logAttempt(ctx: CallContext, attempt: number, started: number, outcome: number | string): void {
    this.#deps.logger.debug(
      { endpoint: ctx.endpoint, url: ctx.request.url, attempt: attempt + 1, outcome, ms: Math.round(this.#deps.clock.monotonic() - started) },
      "api request",
    );
  }
}

/** A 4xx: the service refused the call before doing anything. */
function isRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500;
}
