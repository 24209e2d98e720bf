/**
 * The emulator's composition root and node:http edge: wires store, generation, faults, the
 * request log, persistence and the controls, and serves `/api/v3/...` plus `/__control/...`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { API_KEY_HEADER } from "../api/schemas.js";
import type { ApiHandler, ApiServices } from "./api-context.js";
import { dispatchApi } from "./api-dispatch.js";
import { apiRoutes } from "./api-routes.js";
import { createControl, type EmulatorControl } from "./control.js";
import { controlRoutes, type ControlHandler } from "./control-routes.js";
import { byteSize, encodeAnswer } from "./compression.js";
import { decideOutcome, type Outcome } from "./fault-outcome.js";
import { FaultState } from "./faults.js";
import { GenerationRunner } from "./generation.js";
import { encodeJson, errorResponse, readBody, writeRaw, type JsonResponse } from "./http-io.js";
import { resolveOptions } from "./options.js";
import { loadState, StateSaver } from "./persistence.js";
import { ConnectionLedger } from "./connection-ledger.js";
import { PollLimiter } from "./poll-limit.js";
import { RequestLog } from "./request-log.js";
import { matchRoute, type Route } from "./router.js";
import { EmulatorStore } from "./store.js";
import type { CompressMode, EmulatorOptions, RequestLogEntry } from "./types.js";

/** A listening emulator. */
export interface RunningEmulator {
  /** e.g. `http://127.0.0.1:PORT/api` (routes are `${baseUrl}/v3/...`). */
  baseUrl: string;
  port: number;
  control: EmulatorControl;
  /** Stops timers, closes every connection, saves the data file. Idempotent. */
  close(): Promise<void>;
}

interface Parts {
  services: ApiServices;
  apiRoutes: ReadonlyArray<Route<ApiHandler>>;
  controlRoutes: ReadonlyArray<Route<ControlHandler>>;
  faults: FaultState;
  requestLog: RequestLog;
  control: EmulatorControl;
  saver: StateSaver | undefined;
  closing: AbortController;
  /** TCP connections accepted and their bytes (the controls read them). */
  connections: ConnectionLedger;
  /** Current compression mode (options.compress, changed by control.setCompression). */
  compression: { mode: CompressMode };
}

/** Starts the emulator; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const parts = await buildParts(options);
  const server = createServer((req, res) => {
    // A throwing logger callback or a socket torn down mid-write must never crash the host process.
    handleRequest(parts, req, res).catch((err: unknown) => writeJson(res, errorResponse(err)));
  });
  server.on("connection", (socket) => parts.connections.add(socket));
  const { host, port: wantedPort } = parts.services.options;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(wantedPort, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    baseUrl: `http://${urlHost(host)}:${port}/api`,
    port,
    control: parts.control,
    close: () => (closed ??= closeAll(parts, server)),
  };
}

async function buildParts(options: EmulatorOptions): Promise<Parts> {
  const resolved = resolveOptions(options);
  let saver: StateSaver | undefined;
  const store = new EmulatorStore({ defaultCredits: resolved.credits, onChange: () => saver?.schedule() });
  if (resolved.dataFile !== undefined) {
    const state = await loadState(resolved.dataFile);
    if (state !== undefined) store.importState(state);
    const log = resolved.logger;
    const onError = (err: unknown): void => log?.(`emulator: saving data failed: ${String(err)}`);
    saver = new StateSaver(resolved.dataFile, () => store.exportState(), onError);
  }
  const runner = new GenerationRunner(store, resolved.generationMs);
  runner.resume();
  const faults = new FaultState(resolved.faults);
  const requestLog = new RequestLog();
  const pollLimiter = new PollLimiter(resolved.minPollIntervalMs);
  const services: ApiServices = { store, runner, pollLimiter, options: resolved };
  const connections = new ConnectionLedger();
  const compression = { mode: resolved.compress };
  const control = createControl({ store, runner, faults, requestLog, options: resolved, connections: () => connections.stats(), compression });
  return {
    services,
    apiRoutes: apiRoutes(),
    controlRoutes: controlRoutes(),
    faults,
    requestLog,
    control,
    saver,
    closing: new AbortController(),
    connections,
    compression,
  };
}

async function closeAll(parts: Parts, server: Server): Promise<void> {
  parts.closing.abort();
  parts.services.runner.stop();
  parts.requestLog.close();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive sockets and hung requests would otherwise hold close() forever.
  server.closeAllConnections();
  await closed;
  await parts.saver?.flush();
}

async function handleRequest(parts: Parts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://emulator.invalid");
  const method = req.method ?? "GET";
  let rawBody: string;
  let bodyError: unknown;
  try {
    rawBody = await readBody(req, parts.services.options.maxBodyBytes);
  } catch (err) {
    rawBody = "";
    bodyError = err;
  }
  if (url.pathname === "/__control" || url.pathname.startsWith("/__control/")) {
    writeJson(res, bodyError === undefined ? await handleControl(parts, method, url, rawBody) : errorResponse(bodyError));
    return;
  }
  // A body refused (413) is answered and logged like any other API request.
  await handleApi(parts, { req, res, method, url, rawBody, bodyError });
}

async function handleControl(parts: Parts, method: string, url: URL, rawBody: string): Promise<JsonResponse> {
  try {
    const match = matchRoute(parts.controlRoutes, method, url.pathname);
    if (match.kind !== "found") return { status: 404, body: { error: `No control route ${method} ${url.pathname}` } };
    return await match.handler({ control: parts.control, params: match.params, query: url.searchParams, rawBody });
  } catch (err) {
    if (err instanceof RangeError) return { status: 400, body: { error: err.message } };
    return errorResponse(err);
  }
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  url: URL;
  rawBody: string;
  /** Why the body could not be read (too large): the answer, unless a fault decides first. */
  bodyError: unknown;
}

async function handleApi(parts: Parts, ex: Exchange): Promise<void> {
  const started = Date.now();
  const receivedMs = performance.now();
  const isApi = ex.url.pathname.startsWith("/api/");
  const path = isApi ? ex.url.pathname.slice("/api".length) : ex.url.pathname;
  const injected = parts.faults.takeInjected(ex.method, path);
  // A connection is usable handshakeMs after its accept; a request on it waits for that first.
  const accepted = parts.connections.acceptedAt(ex.req.socket);
  const handshakeLeftMs = accepted === undefined ? 0 : Math.max(0, accepted + parts.faults.handshakeMs() - performance.now());
  const delayMs = handshakeLeftMs + parts.faults.latencyMs() + (injected !== undefined && "delayMs" in injected ? injected.delayMs : 0);
  if (delayMs > 0) {
    try {
      await sleep(delayMs, undefined, { signal: parts.closing.signal });
    } catch {
      return; // closing: the connection is gone anyway
    }
  }
  const handle = (): Promise<JsonResponse> => {
    if (!isApi) return Promise.resolve({ status: 404, body: { error: `No route ${ex.method} ${ex.url.pathname}` } });
    if (ex.bodyError !== undefined) return Promise.resolve(errorResponse(ex.bodyError));
    const header = ex.req.headers[API_KEY_HEADER];
    const apiKey = Array.isArray(header) ? header[0] : header;
    const request = { method: ex.method, path, query: ex.url.searchParams, apiKey, rawBody: ex.rawBody };
    return dispatchApi(parts.apiRoutes, parts.services, request);
  };
  const decided = await decideOutcome(injected, parts.faults.rollRandom(), handle, (apply) => parts.faults.holdLate(apply));
  const outcome = decided.kind === "send" ? await encodeAnswer(decided, ex.req.headers, parts.compression.mode) : decided;
  if (decided.kind === "send" && outcome.kind === "send") parts.connections.addBody(byteSize(outcome.text), byteSize(decided.text));
  applyOutcome(ex.res, outcome);
  recordRequest(parts, { method: ex.method, path, search: ex.url.search, outcome, started, receivedMs });
}

function applyOutcome(res: ServerResponse, outcome: Outcome): void {
  if (outcome.kind === "send") writeRaw(res, outcome.status, outcome.text, outcome.headers);
  else if (outcome.kind === "drop") res.socket?.destroy();
  // "hang": nothing is ever written; close() destroys the socket.
}

interface Handled {
  method: string;
  path: string;
  search: string;
  outcome: Outcome;
  started: number;
  receivedMs: number;
}

function recordRequest(parts: Parts, info: Handled): void {
  const { outcome } = info;
  const status = outcome.kind === "send" ? outcome.status : 0;
  const fault = outcome.kind === "hang" ? "hang" : outcome.fault;
  const entry: RequestLogEntry = {
    method: info.method,
    path: info.path,
    search: info.search,
    status,
    at: Date.now(),
    receivedMs: info.receivedMs,
    answeredMs: performance.now(),
  };
  if (fault !== undefined) entry.fault = fault;
  parts.requestLog.add(entry);
  const suffix = fault === undefined ? "" : ` [fault: ${fault}]`;
  const elapsedMs = Date.now() - info.started;
  const answer = status === 0 ? "no answer" : String(status);
  parts.services.options.logger?.(`${info.method} ${info.path}${info.search} -> ${answer} (${elapsedMs} ms)${suffix}`);
}

function writeJson(res: ServerResponse, response: JsonResponse): void {
  const { text, headers } = encodeJson(response);
  writeRaw(res, response.status, text, headers);
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
