/**
 * Every v3 endpoint once: method, path template (also the name errors and logs use), request
 * and response schemas, whether repeating it is safe, and what it does in words.
 */
import type { z } from "zod";
import type { CallContext } from "./response.js";
import {
  activeArtifactResponseSchema,
  artifactSchema,
  createArtifactRequestSchema,
  createDesignRequestSchema,
  designSchema,
  designStatusSchema,
  designSystemsResponseSchema,
  healthResponseSchema,
  messagesPageSchema,
  promptRequestSchema,
  promptResponseSchema,
  publishResponseSchema,
  readFilesRequestSchema,
  readFilesResponseSchema,
  resolveUrlRequestSchema,
  resolveUrlResponseSchema,
  skipQuerySchema,
  versionsPageSchema,
  writeFilesRequestSchema,
  writeFilesResponseSchema,
} from "./schemas.js";

/** One endpoint of the v3 surface. */
export interface Endpoint<T> {
  method: "GET" | "POST" | "PATCH";
  /** Path template below the base URL, e.g. `/v3/designs/{editorId}/status`. */
  template: string;
  response: z.ZodType<T>;
  /** The request body's schema (strict: the emulator answers 400 to a client bug). */
  body?: z.ZodType;
  /** The `skip` query parameter's schema, for the paged lists. */
  skip?: z.ZodType<number>;
  /**
   * True when a repeat cannot do anything twice. Creating designs and artifacts and sending
   * prompts are not: a retry after a lost response would create a second one.
   */
  idempotent: boolean;
  /** What the call does, in words, for messages: "could not read the design's status: ...". */
  action: string;
}

/**
 * The v3 endpoints, by client method: the one table of endpoint facts. The client sends by it,
 * its errors name and describe calls by it, and the emulator's routes are built from it with
 * one handler per name (`emulator/api-routes.ts`: a missing handler fails the build).
 */
export const ENDPOINTS = {
  health: { method: "GET", template: "/v3/health", response: healthResponseSchema, idempotent: true, action: "check the API key" },
  createDesign: {
    method: "POST",
    template: "/v3/designs",
    response: designSchema,
    body: createDesignRequestSchema,
    idempotent: false,
    action: "create the design",
  },
  resolveUrl: {
    method: "POST",
    template: "/v3/designs/resolve-url",
    response: resolveUrlResponseSchema,
    body: resolveUrlRequestSchema,
    idempotent: true,
    action: "resolve the URL",
  },
  listVersions: {
    method: "GET",
    template: "/v3/designs/{editorId}/versions",
    response: versionsPageSchema,
    skip: skipQuerySchema,
    idempotent: true,
    action: "read the version history",
  },
  getStatus: { method: "GET", template: "/v3/designs/{editorId}/status", response: designStatusSchema, idempotent: true, action: "read the design's status" },
  getActiveArtifact: {
    method: "GET",
    template: "/v3/designs/{editorId}/active-artifact",
    response: activeArtifactResponseSchema,
    idempotent: true,
    action: "read the active version",
  },
  writeFiles: {
    method: "PATCH",
    template: "/v3/designs/{editorId}/artifacts/{artifactId}/files",
    response: writeFilesResponseSchema,
    body: writeFilesRequestSchema,
    // Not repeated by the client: a whole-file write is idempotent only while nobody else
    // writes. Re-sent after a 503, a reset or a timeout, it would overwrite an edit that landed
    // between the attempts (the web editor, a teammate). A failed PATCH is retried by the next
    // sync cycle instead, which reads the remote again and reconciles (design-sync.ts).
    idempotent: false,
    action: "send the changed files",
  },
  createArtifact: {
    method: "POST",
    template: "/v3/designs/{editorId}/artifacts",
    response: artifactSchema,
    body: createArtifactRequestSchema,
    idempotent: false,
    action: "create a version",
  },
  readFiles: {
    method: "POST",
    template: "/v3/designs/{editorId}/artifacts/{artifactId}/files/read",
    response: readFilesResponseSchema,
    body: readFilesRequestSchema,
    idempotent: true,
    action: "read the design's files",
  },
  sendPrompt: {
    method: "POST",
    template: "/v3/designs/{editorId}/prompts",
    response: promptResponseSchema,
    body: promptRequestSchema,
    idempotent: false,
    action: "send the prompt",
  },
  publish: {
    method: "POST",
    template: "/v3/designs/{editorId}/artifacts/{artifactId}/publish",
    response: publishResponseSchema,
    // Compiling the same artifact again gives the same preview.
    idempotent: true,
    action: "publish",
  },
  listDesignSystems: {
    method: "GET",
    template: "/v3/design-systems",
    response: designSystemsResponseSchema,
    idempotent: true,
    action: "list the design systems",
  },
  listMessages: {
    method: "GET",
    template: "/v3/designs/{editorId}/messages",
    response: messagesPageSchema,
    skip: skipQuerySchema,
    idempotent: true,
    action: "read the chat history",
  },
} as const satisfies Record<string, Endpoint<unknown>>;

/** A v3 endpoint's name (its client method). */
export type EndpointName = keyof typeof ENDPOINTS;

/** What endpoint `K` answers on success (its response schema's output). */
export type EndpointResponse<K extends EndpointName> = z.output<(typeof ENDPOINTS)[K]["response"]>;

/** `GET /v3/designs/{editorId}/status`: how errors and logs name an endpoint. */
export function endpointLabel(endpoint: Endpoint<unknown>): string {
  return `${endpoint.method} ${endpoint.template}`;
}

/** What an error needs to know of one call to `endpoint` at `url` (response.ts). */
export function callContext(endpoint: Endpoint<unknown>, url: string, secrets: readonly string[]): CallContext {
  return { endpoint: endpointLabel(endpoint), action: endpoint.action, request: { method: endpoint.method, url }, idempotent: endpoint.idempotent, secrets };
}

/** The router's pattern of `template`: `/v3/designs/{editorId}/status` -> `/v3/designs/:editorId/status`. */
export function routePattern(template: string): string {
  return template.replace(/\{(\w+)\}/g, ":$1");
}

/** Fills `{name}` placeholders of `template` with URL-encoded `params`. */
export function expandPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });
}
