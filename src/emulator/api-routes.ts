/** The v3 route table (paths without the `/api` prefix), built from the one endpoint table. */
import { ENDPOINTS, routePattern, type EndpointName } from "../api/endpoints.js";
import type { ApiHandlers, ApiRoute } from "./api-context.js";
import { ARTIFACT_HANDLERS } from "./routes-artifacts.js";
import { DESIGN_HANDLERS } from "./routes-designs.js";

/**
 * The emulator's handler of each v3 endpoint, typed by the table: a missing one fails the
 * build. A new endpoint's handler joins the map of the file that holds it.
 */
const HANDLERS: ApiHandlers = { ...DESIGN_HANDLERS, ...ARTIFACT_HANDLERS };

/** Every v3 endpoint. Literal paths come before parameterised ones (the router takes the first match). */
export function apiRoutes(): ApiRoute[] {
  const names = Object.keys(ENDPOINTS) as EndpointName[];
  const routes = names.map((name): ApiRoute => ({ method: ENDPOINTS[name].method, pattern: routePattern(ENDPOINTS[name].template), handler: HANDLERS[name] }));
  return routes.sort((a, b) => parameters(a.pattern) - parameters(b.pattern));
}

function parameters(pattern: string): number {
  return pattern.split("/").filter((s) => s.startsWith(":")).length;
}
