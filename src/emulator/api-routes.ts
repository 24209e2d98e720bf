/** The v3 route table (paths without the `/api` prefix). */
import type { ApiRoute } from "./api-context.js";
import {
  createArtifact,
  getActiveArtifact,
  publishArtifact,
  readFiles,
  writeFiles,
} from "./routes-artifacts.js";
import {
  createDesign,
  getHealth,
  getStatus,
  listDesignSystems,
  listMessages,
  listVersions,
  resolveUrl,
  sendPrompt,
} from "./routes-designs.js";

const DESIGN = "/v3/designs/:editorId";
const ARTIFACT = `${DESIGN}/artifacts/:artifactId`;

/** Every v3 endpoint. Literal paths come before parameterised ones of the same length. */
export function apiRoutes(): ApiRoute[] {
  return [
    { method: "GET", pattern: "/v3/health", handler: getHealth },
    { method: "GET", pattern: "/v3/design-systems", handler: listDesignSystems },
    { method: "POST", pattern: "/v3/designs", handler: createDesign },
    { method: "POST", pattern: "/v3/designs/resolve-url", handler: resolveUrl },
    { method: "GET", pattern: `${DESIGN}/versions`, handler: listVersions },
    { method: "GET", pattern: `${DESIGN}/messages`, handler: listMessages },
    { method: "GET", pattern: `${DESIGN}/status`, handler: getStatus },
    { method: "GET", pattern: `${DESIGN}/active-artifact`, handler: getActiveArtifact },
    { method: "POST", pattern: `${DESIGN}/prompts`, handler: sendPrompt },
    { method: "POST", pattern: `${DESIGN}/artifacts`, handler: createArtifact },
    { method: "PATCH", pattern: `${ARTIFACT}/files`, handler: writeFiles },
    { method: "POST", pattern: `${ARTIFACT}/files/read`, handler: readFiles },
    { method: "POST", pattern: `${ARTIFACT}/publish`, handler: publishArtifact },
  ];
}
