/**
 * Every v3 endpoint once: method, path template (also the name errors and logs use), response
 * schema and whether repeating it is safe.
 */
import type { z } from "zod";
import {
  activeArtifactResponseSchema,
  artifactSchema,
  designSchema,
  designStatusSchema,
  designSystemsResponseSchema,
  healthResponseSchema,
  messagesPageSchema,
  promptResponseSchema,
  publishResponseSchema,
  readFilesResponseSchema,
  resolveUrlResponseSchema,
  versionsPageSchema,
  writeFilesResponseSchema,
} from "./schemas.js";

/** One endpoint of the v3 surface. */
export interface Endpoint<T> {
  method: "GET" | "POST" | "PATCH";
  /** Path template below the base URL, e.g. `/v3/designs/{editorId}/status`. */
  template: string;
  response: z.ZodType<T>;
  /**
   * True when a repeat cannot do anything twice. Creating designs and artifacts and sending
   * prompts are not: a retry after a lost response would create a second one.
   */
  idempotent: boolean;
}

function endpoint<T>(spec: Endpoint<T>): Endpoint<T> {
  return spec;
}

/** The v3 endpoints, by client method. */
export const ENDPOINTS = {
  health: endpoint({ method: "GET", template: "/v3/health", response: healthResponseSchema, idempotent: true }),
  createDesign: endpoint({ method: "POST", template: "/v3/designs", response: designSchema, idempotent: false }),
  resolveUrl: endpoint({
    method: "POST",
    template: "/v3/designs/resolve-url",
    response: resolveUrlResponseSchema,
    idempotent: true,
  }),
  listVersions: endpoint({
    method: "GET",
    template: "/v3/designs/{editorId}/versions",
    response: versionsPageSchema,
    idempotent: true,
  }),
  getStatus: endpoint({
    method: "GET",
    template: "/v3/designs/{editorId}/status",
    response: designStatusSchema,
    idempotent: true,
  }),
  getActiveArtifact: endpoint({
    method: "GET",
    template: "/v3/designs/{editorId}/active-artifact",
    response: activeArtifactResponseSchema,
    idempotent: true,
  }),
  writeFiles: endpoint({
    method: "PATCH",
    template: "/v3/designs/{editorId}/artifacts/{artifactId}/files",
    response: writeFilesResponseSchema,
    // Not repeated by the client: a whole-file write is idempotent only while nobody else
    // writes. Re-sent after a 503, a reset or a timeout, it would overwrite an edit that landed
    // between the attempts (the web editor, a teammate). A failed PATCH is retried by the next
    // sync cycle instead, which reads the remote again and reconciles (design-sync.ts).
    idempotent: false,
  }),
  createArtifact: endpoint({
    method: "POST",
    template: "/v3/designs/{editorId}/artifacts",
    response: artifactSchema,
    idempotent: false,
  }),
  readFiles: endpoint({
    method: "POST",
    template: "/v3/designs/{editorId}/artifacts/{artifactId}/files/read",
    response: readFilesResponseSchema,
    idempotent: true,
  }),
  sendPrompt: endpoint({
    method: "POST",
    template: "/v3/designs/{editorId}/prompts",
    response: promptResponseSchema,
    idempotent: false,
  }),
  publish: endpoint({
    method: "POST",
    template: "/v3/designs/{editorId}/artifacts/{artifactId}/publish",
    response: publishResponseSchema,
    // Compiling the same artifact again gives the same preview.
    idempotent: true,
  }),
  listDesignSystems: endpoint({
    method: "GET",
    template: "/v3/design-systems",
    response: designSystemsResponseSchema,
    idempotent: true,
  }),
  listMessages: endpoint({
    method: "GET",
    template: "/v3/designs/{editorId}/messages",
    response: messagesPageSchema,
    idempotent: true,
  }),
} as const;

/** Fills `{name}` placeholders of `template` with URL-encoded `params`. */
export function expandPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });
}
