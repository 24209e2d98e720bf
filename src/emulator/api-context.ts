/** What every v3 handler receives, and the helpers they share (access checks, typed replies). */
import type { z } from "zod";
import type { EndpointName, EndpointResponse } from "../api/endpoints.js";
import type { GenerationRunner } from "./generation.js";
import { EmulatorHttpError } from "./http-error.js";
import type { JsonResponse } from "./http-io.js";
import type { PollLimiter } from "./poll-limit.js";
import type { Route } from "./router.js";
import type { EmulatorStore } from "./store.js";
import type { ResolvedOptions, StoredArtifact, StoredDesign } from "./types.js";

/** Long-lived collaborators of the handlers. */
export interface ApiServices {
  store: EmulatorStore;
  runner: GenerationRunner;
  pollLimiter: PollLimiter;
  options: ResolvedOptions;
}

/** One authenticated request. `owner` identifies the key's account (a hash, never the key). */
export interface ApiContext {
  owner: string;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  rawBody: string;
  services: ApiServices;
}

/** A 200 answer whose body is what the endpoint's response schema gives. */
export interface Reply<T> extends JsonResponse {
  body: T;
}

/** The handler of endpoint `K`: it answers what the client accepts from `K` (or throws an HTTP error). */
export type ApiHandler<K extends EndpointName = EndpointName> = (ctx: ApiContext) => Reply<EndpointResponse<K>> | Promise<Reply<EndpointResponse<K>>>;
/** One handler for every endpoint of the table (`api/endpoints.ts`): a missing one fails the build. */
export type ApiHandlers = { [K in EndpointName]: ApiHandler<K> };
/** A v3 route. */
export type ApiRoute = Route<ApiHandler>;

/** A path parameter the route pattern guarantees. */
export function param(ctx: ApiContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`route has no :${name}`);
  return value;
}

/** The design named by `:editorId`: 404 when unknown, 403 when another key's account owns it. */
export function ownedDesign(ctx: ApiContext): StoredDesign {
  return requireAccess(ctx, ctx.services.store.requireDesign(param(ctx, "editorId")));
}

/** 403 unless `design` belongs to the caller's account. */
export function requireAccess(ctx: ApiContext, design: StoredDesign): StoredDesign {
  if (design.owner !== ctx.owner) {
    throw new EmulatorHttpError(403, `This API key has no access to design ${design.editorId}`);
  }
  return design;
}

/** The artifact named by `:artifactId` in an owned design. */
export function ownedArtifact(ctx: ApiContext): { design: StoredDesign; artifact: StoredArtifact } {
  const design = ownedDesign(ctx);
  return { design, artifact: ctx.services.store.requireArtifact(design, param(ctx, "artifactId")) };
}

/**
 * A 200 whose body is checked against the shared response schema, so the emulator can never
 * answer something the client would reject (a mismatch is an emulator bug: 500).
 */
export function reply<T extends z.ZodType>(schema: T, body: z.input<T>): Reply<z.output<T>> {
  return { status: 200, body: schema.parse(body) };
}

/** File names of an artifact, in service order. */
export function fileNames(artifact: StoredArtifact): string[] {
  return [...artifact.files.keys()];
}
