/** A tiny path router: `/v3/designs/:editorId/status` style patterns, exact segment counts. */

/** One route. `handler` gets whatever context the table was built for. */
export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
}

/** Result of matching a request against a table. */
export type RouteMatch<H> =
  { kind: "found"; handler: H; params: Record<string, string> } | { kind: "method-not-allowed"; allowed: string[] } | { kind: "not-found" };

/** Finds the route for `method` and `path`. Literal segments win over parameters (table order). */
export function matchRoute<H>(routes: ReadonlyArray<Route<H>>, method: string, path: string): RouteMatch<H> {
  const segments = path.split("/").filter((s) => s.length > 0);
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPattern(route.pattern, segments);
    if (params === undefined) continue;
    if (route.method === method) return { kind: "found", handler: route.handler, params };
    allowed.push(route.method);
  }
  return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
}

function matchPattern(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split("/").filter((s) => s.length > 0);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] ?? "";
    if (part.startsWith(":")) {
      const decoded = safeDecode(segment);
      if (decoded === undefined) return undefined;
      params[part.slice(1)] = decoded;
    } else if (part !== segment) {
      return undefined;
    }
  }
  return params;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
