/**
 * The controls over HTTP, for other processes (demo, benchmarks, end-to-end tests). No key is
 * needed: the emulator listens on loopback by default. JSON bodies; answers are JSON.
 *
 *   POST   /__control/designs                          {key, name?, files?} -> {editorId, artifactId, canvasId}
 *   GET    /__control/designs/:editorId                -> DesignSnapshot
 *   GET    /__control/designs/:editorId/files?artifactId=  -> {files: {name: content}}
 *   POST   /__control/designs/:editorId/edit-file      {name, content, artifactId?}
 *   POST   /__control/designs/:editorId/remove-file    {name, artifactId?}
 *   POST   /__control/designs/:editorId/set-files      {files, newArtifact?, title?} -> {artifactId}
 *   POST   /__control/designs/:editorId/active-artifact {artifactId}
 *   POST   /__control/designs/:editorId/start-generation {prompt, autoFinish?} -> {requestId}
 *   POST   /__control/designs/:editorId/finish-generation -> {artifactId | null}
 *   POST   /__control/credits                          {key, credits}
 *   POST   /__control/faults                           {latencyMs?, handshakeMs?, errorRate?, dropRate?, seed?}
 *   DELETE /__control/faults                           clears random and queued faults
 *   POST   /__control/fail-next                        {match: {method?, path?, pathRegex?}, fault, times?}
 *   GET    /__control/requests[?method=&path=&pathRegex=&status=]        -> {requests}
 *   GET    /__control/requests/count[?method=&path=&pathRegex=&status=]  -> {count}
 *   POST   /__control/requests/wait  {method?, path?, pathRegex?, status?, timeoutMs?, includePast?} -> {request}; 408 on timeout
 *   DELETE /__control/requests                         empties the log
 *   GET    /__control/connections                      -> {opened, bytesRead, bytesWritten, bodyBytesSent, bodyBytesDecoded}: TCP connections accepted so far
 *   POST   /__control/compression                      {mode: "auto" | "off"}
 */
import * as z from "zod";
import type { EmulatorControl } from "./control.js";
import { matchesRequest } from "./faults.js";
import { badRequest } from "./http-error.js";
import { parseJsonBody, validate, type JsonResponse } from "./http-io.js";
import type { RequestPredicate } from "./request-log.js";
import type { Route } from "./router.js";

/** What a control handler receives. */
export interface ControlInput {
  control: EmulatorControl;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  rawBody: string;
}

/** A control handler. */
export type ControlHandler = (input: ControlInput) => JsonResponse | Promise<JsonResponse>;

const filterSchema = z.strictObject({
  method: z.string().optional(),
  path: z.string().optional(),
  pathRegex: z.string().optional(),
  status: z.coerce.number().int().optional(),
});
const waitSchema = filterSchema.extend({
  timeoutMs: z.number().min(0).optional(),
  includePast: z.boolean().optional(),
});
const faultSchema = z.union([
  z.strictObject({
    status: z.number().int().min(100).max(599),
    body: z.string().optional(),
    retryAfter: z.string().optional(),
  }),
  z.strictObject({ drop: z.literal(true), after: z.boolean().optional(), late: z.boolean().optional() }),
  z.strictObject({ malformed: z.enum(["html", "truncated", "wrong-shape", "invalid-json", "corrupt-encoding", "unknown-encoding"]) }),
  z.strictObject({ hang: z.literal(true) }),
  z.strictObject({ delayMs: z.number().min(0) }),
]);
const failNextSchema = z.strictObject({
  match: z.strictObject({ method: z.string().optional(), path: z.string().optional(), pathRegex: z.string().optional() }).default({}),
  fault: faultSchema,
  times: z.number().int().min(1).optional(),
});
const faultOptionsSchema = z.strictObject({
  latencyMs: z.number().min(0).optional(),
  handshakeMs: z.number().min(0).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  dropRate: z.number().min(0).max(1).optional(),
  seed: z.number().int().optional(),
});
const compressionSchema = z.strictObject({ mode: z.enum(["auto", "off"]) });
const filesSchema = z.record(z.string(), z.string());
const createSchema = z.strictObject({ key: z.string().min(1), name: z.string().optional(), files: filesSchema.optional() });
const editFileSchema = z.strictObject({ name: z.string().min(1), content: z.string(), artifactId: z.string().optional() });
const removeFileSchema = z.strictObject({ name: z.string().min(1), artifactId: z.string().optional() });
const setFilesSchema = z.strictObject({ files: filesSchema, newArtifact: z.boolean().optional(), title: z.string().optional() });
const activeSchema = z.strictObject({ artifactId: z.string().min(1) });
const startSchema = z.strictObject({ prompt: z.string().min(1), autoFinish: z.boolean().optional() });
const creditsSchema = z.strictObject({ key: z.string().min(1), credits: z.number().int().min(0) });

const ok = (body: unknown = { ok: true }): JsonResponse => ({ status: 200, body });
const editorIdOf = (input: ControlInput): string => input.params["editorId"] ?? "";

function toRegExp(source: string | undefined): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(source);
  } catch (err) {
    throw badRequest(`pathRegex is not a valid regular expression: ${(err as Error).message}`);
  }
}

function predicateOf(filter: z.output<typeof filterSchema>): RequestPredicate {
  const path = toRegExp(filter.pathRegex) ?? filter.path;
  return (entry) =>
    matchesRequest({ method: filter.method, path }, entry.method, entry.path) && (filter.status === undefined || entry.status === filter.status);
}

function queryPredicate(query: URLSearchParams): RequestPredicate {
  return predicateOf(validate(filterSchema, Object.fromEntries(query), "query"));
}

const designRoutes: Array<Route<ControlHandler>> = [
  {
    method: "POST",
    pattern: "/__control/designs",
    handler: (input) => {
      const body = parseJsonBody(input.rawBody, createSchema);
      return ok(input.control.createDesign(body.key, { name: body.name, files: body.files }));
    },
  },
  { method: "GET", pattern: "/__control/designs/:editorId", handler: (input) => ok(input.control.getDesign(editorIdOf(input))) },
  {
    method: "GET",
    pattern: "/__control/designs/:editorId/files",
    handler: (input) => {
      const artifactId = input.query.get("artifactId") ?? undefined;
      return ok({ files: input.control.getFiles(editorIdOf(input), artifactId) });
    },
  },
  {
    method: "POST",
    pattern: "/__control/designs/:editorId/edit-file",
    handler: (input) => {
      const body = parseJsonBody(input.rawBody, editFileSchema);
      input.control.editFile(editorIdOf(input), body.name, body.content, body.artifactId);
      return ok();
    },
  },
  {
    method: "POST",
    pattern: "/__control/designs/:editorId/remove-file",
    handler: (input) => {
      const body = parseJsonBody(input.rawBody, removeFileSchema);
      input.control.removeFile(editorIdOf(input), body.name, body.artifactId);
      return ok();
    },
  },
  {
    method: "POST",
    pattern: "/__control/designs/:editorId/set-files",
    handler: (input) => {
      const body = parseJsonBody(input.rawBody, setFilesSchema);
      const options = { newArtifact: body.newArtifact, title: body.title };
      return ok({ artifactId: input.control.setFiles(editorIdOf(input), body.files, options) });
    },
  },
  {
    method: "POST",
    pattern: "/__control/designs/:editorId/active-artifact",
    handler: (input) => {
      input.control.setActiveArtifact(editorIdOf(input), parseJsonBody(input.rawBody, activeSchema).artifactId);
      return ok();
    },
  },
  {
    method: "POST",
    pattern: "/__control/designs/:editorId/start-generation",
    handler: (input) => {
      const body = parseJsonBody(input.rawBody, startSchema);
      return ok({ requestId: input.control.startGeneration(editorIdOf(input), body.prompt, { autoFinish: body.autoFinish }) });
    },
  },
  { method: "POST", pattern: "/__control/designs/:editorId/finish-generation", handler: (input) => ok(input.control.finishGeneration(editorIdOf(input))) },
];

const faultAndLogRoutes: Array<Route<ControlHandler>> = [
  {
    method: "POST",
    pattern: "/__control/credits",
    handler: (input) => {
      const body = parseJsonBody(input.rawBody, creditsSchema);
      input.control.setCredits(body.key, body.credits);
      return ok();
    },
  },
  {
    method: "POST",
    pattern: "/__control/faults",
    handler: (input) => {
      input.control.setFaults(parseJsonBody(input.rawBody, faultOptionsSchema));
      return ok();
    },
  },
  {
    method: "DELETE",
    pattern: "/__control/faults",
    handler: (input) => {
      input.control.clearFaults();
      return ok();
    },
  },
  {
    method: "POST",
    pattern: "/__control/fail-next",
    handler: (input) => {
      const body = parseJsonBody(input.rawBody, failNextSchema);
      const path = toRegExp(body.match.pathRegex) ?? body.match.path;
      input.control.failNext({ method: body.match.method, path }, body.fault, body.times);
      return ok();
    },
  },
  { method: "GET", pattern: "/__control/requests", handler: (input) => ok({ requests: input.control.requests().filter(queryPredicate(input.query)) }) },
  { method: "GET", pattern: "/__control/requests/count", handler: (input) => ok({ count: input.control.countRequests(queryPredicate(input.query)) }) },
  {
    method: "POST",
    pattern: "/__control/requests/wait",
    handler: async (input) => {
      const { timeoutMs, includePast, ...filter } = parseJsonBody(input.rawBody, waitSchema);
      try {
        return ok({ request: await input.control.waitForRequest(predicateOf(filter), { timeoutMs, includePast }) });
      } catch (err) {
        return { status: 408, body: { error: (err as Error).message } };
      }
    },
  },
  {
    method: "DELETE",
    pattern: "/__control/requests",
    handler: (input) => {
      input.control.resetRequestLog();
      return ok();
    },
  },
  { method: "GET", pattern: "/__control/connections", handler: (input) => ok({ ...input.control.connections() }) },
  {
    method: "POST",
    pattern: "/__control/compression",
    handler: (input) => {
      input.control.setCompression(parseJsonBody(input.rawBody, compressionSchema).mode);
      return ok();
    },
  },
];

/** Every control route (paths include the `/__control` prefix). */
export function controlRoutes(): Array<Route<ControlHandler>> {
  return [...designRoutes, ...faultAndLogRoutes];
}
