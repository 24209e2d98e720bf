/**
 * The two parts of undici the client uses, loaded on their own: the keep-alive Agent and the
 * promise `request`. undici's main entry requires everything it offers (fetch, WebSocket, the
 * cookie and cache stores, mocks, proxies, interceptors) and, through its cookie module, Node's
 * own bundled copy of undici too: about 100 ms of a CLI command's start on a small machine
 * (BENCHMARKS.md, figure 6). These are the same files the main entry loads, so the Agent is the
 * same class whichever way it was imported; `test/api/undici-lean.test.ts` pins both paths
 * against the pinned undici version, so an upgrade that moves them fails a test, not a user.
 * The CLI bundle (scripts/bundle-cli.mjs) compiles them in, without undici's HTTP/2 client.
 */
import type { Agent as UndiciAgent, Dispatcher } from "undici";
import AgentClass from "undici/lib/dispatcher/agent.js";
import apiRequest from "undici/lib/api/api-request.js";
import buildConnectorFn from "undici/lib/core/connect.js";

/** undici's socket connector factory (`undici/lib/core/connect.js`), the Agent's default. */
export const buildConnector = buildConnectorFn;

/** undici's Agent (`undici/lib/dispatcher/agent.js`). */
export const Agent: typeof UndiciAgent = AgentClass;
/** A keep-alive undici Agent. */
export type Agent = UndiciAgent;

/** What `request` takes besides the URL (undici's own request options, minus origin and path). */
export type RequestOptions = Omit<Dispatcher.RequestOptions, "origin" | "path">;

/**
 * undici's `request(url, { dispatcher, ... })`: one request through `dispatcher` (any undici
 * Dispatcher: the client's Agent or one a caller passed), its body to be read by the caller.
 */
export function request(dispatcher: Dispatcher, url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const parsed = new URL(url);
  return apiRequest.call(dispatcher, { ...options, origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` });
}
