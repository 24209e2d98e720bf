/** Turns one `/api` request into a response: authentication, routing, the handler, errors. */
import { API_KEY_HEADER } from "../api/schemas.js";
import type { ApiHandler, ApiServices } from "./api-context.js";
import { EmulatorHttpError } from "./http-error.js";
import { errorResponse, type JsonResponse } from "./http-io.js";
import { ownerOf } from "./ids.js";
import { matchRoute, type Route } from "./router.js";

/** The parts of a request the dispatcher needs (no node:http types: easy to test). */
export interface ApiRequest {
  method: string;
  /** Path without `/api` and without the query. */
  path: string;
  query: URLSearchParams;
  /** Raw value of the key header, if any. */
  apiKey: string | undefined;
  rawBody: string;
}

/** The owner of an accepted key, or a 401. Open mode (no keys configured) accepts any non-empty key. */
export function authenticate(apiKey: string | undefined, keys: readonly string[]): string {
  if (apiKey === undefined || apiKey.trim().length === 0) {
    throw new EmulatorHttpError(401, `Missing API key: send it in the ${API_KEY_HEADER} header`);
  }
  if (keys.length > 0 && !keys.includes(apiKey)) throw new EmulatorHttpError(401, "Invalid API key");
  return ownerOf(apiKey);
}

/** Answers one request; never throws. Authentication comes first, as on the real service. */
export async function dispatchApi(routes: ReadonlyArray<Route<ApiHandler>>, services: ApiServices, request: ApiRequest): Promise<JsonResponse> {
  try {
    const owner = authenticate(request.apiKey, services.options.keys);
    const match = matchRoute(routes, request.method, request.path);
    if (match.kind === "not-found") throw new EmulatorHttpError(404, `No route ${request.method} ${request.path}`);
    if (match.kind === "method-not-allowed") {
      throw new EmulatorHttpError(405, `Method ${request.method} not allowed on ${request.path}`, {
        allow: match.allowed.join(", "),
      });
    }
    return await match.handler({
      owner,
      params: match.params,
      query: request.query,
      rawBody: request.rawBody,
      services,
    });
  } catch (err) {
    return errorResponse(err);
  }
}
