import { describe, expect, it } from "vitest";
import { endpointLabel, ENDPOINTS, expandPath, routePattern } from "../../src/api/endpoints.js";
import { apiRoutes } from "../../src/emulator/api-routes.js";
import { matchRoute } from "../../src/emulator/router.js";

describe("the emulator's routes come from the one endpoint table", () => {
  const routes = apiRoutes();

  it("has one route per endpoint, with the table's method and path", () => {
    const fromTable = Object.values(ENDPOINTS).map((e) => `${e.method} ${routePattern(e.template)}`);
    expect(routes.map((r) => `${r.method} ${r.pattern}`).sort()).toEqual(fromTable.sort());
  });

  it("answers every endpoint's concrete path, with the handler of that endpoint only", () => {
    for (const endpoint of Object.values(ENDPOINTS)) {
      const path = expandPath(endpoint.template, { editorId: "e1", artifactId: "a1" });
      const found = matchRoute(routes, endpoint.method, path);
      expect(found.kind, endpointLabel(endpoint)).toBe("found");
      const owner = routes.find((r) => r.method === endpoint.method && r.pattern === routePattern(endpoint.template));
      expect(found.kind === "found" && found.handler === owner?.handler, endpointLabel(endpoint)).toBe(true);
    }
    expect(new Set(routes.map((r) => r.handler)).size).toBe(routes.length);
  });

  it("puts literal paths before parameterised ones", () => {
    const params = routes.map((r) => r.pattern.split("/").filter((s) => s.startsWith(":")).length);
    expect(params).toEqual([...params].sort((a, b) => a - b));
    expect(matchRoute(routes, "GET", "/v3/designs")).toEqual({ kind: "method-not-allowed", allowed: ["POST"] });
  });
});
