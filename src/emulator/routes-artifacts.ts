/** v3 handlers about artifacts: active artifact, write, clone, read, publish. */
import { artifactSchema, publishResponseSchema, readFilesResponseSchema, writeFilesResponseSchema } from "../api/schemas.js";
import { ENDPOINTS } from "../api/endpoints.js";
import { fileNames, ownedArtifact, ownedDesign, reply, type ApiHandler, type ApiHandlers } from "./api-context.js";
import { compileFiles, notCheckedWarning } from "./compile.js";
import { badRequest, EmulatorHttpError } from "./http-error.js";
import { parseJsonBody } from "./http-io.js";

/** GET /v3/designs/{editorId}/active-artifact */
export const getActiveArtifact: ApiHandler<"getActiveArtifact"> = (ctx) => {
  const design = ownedDesign(ctx);
  const active = ctx.services.store.requireArtifact(design);
  return reply(artifactSchema, { artifactId: active.id, files: fileNames(active) });
};

/**
 * Why a file name is refused by PATCH, or undefined when it is fine. The real service's rules
 * are not documented; the emulator refuses names no file tree could hold safely so that the
 * client's "refused, reported once" path can be exercised. (The control API can still plant
 * any name, to test the client's path jail.)
 */
export function invalidFileNameReason(name: string): string | undefined {
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return "is absolute";
  if (name.includes("\\")) return "contains a backslash";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return "contains a control character";
  const segments = name.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return "has an empty, '.' or '..' segment";
  return undefined;
}

/**
 * PATCH /v3/designs/{editorId}/artifacts/{artifactId}/files: creates new names, replaces named
 * files, leaves the others alone, never compiles. Any artifact of the design may be written,
 * generating or not.
 */
export const writeFiles: ApiHandler<"writeFiles"> = (ctx) => {
  const { artifact } = ownedArtifact(ctx);
  const { files } = parseJsonBody(ctx.rawBody, ENDPOINTS.writeFiles.body);
  for (const file of files) {
    const reason = invalidFileNameReason(file.fileName);
    if (reason !== undefined) throw badRequest(`Invalid file name ${JSON.stringify(file.fileName)}: it ${reason}`);
  }
  for (const file of files) artifact.files.set(file.fileName, file.code);
  ctx.services.store.changed();
  return reply(writeFilesResponseSchema, { files: fileNames(artifact) });
};

/** POST /v3/designs/{editorId}/artifacts: clone a source artifact of this design into a new active one. */
export const createArtifact: ApiHandler<"createArtifact"> = (ctx) => {
  const design = ownedDesign(ctx);
  const body = parseJsonBody(ctx.rawBody, ENDPOINTS.createArtifact.body);
  const { store } = ctx.services;
  const source = store.requireArtifact(design, body.sourceArtifactId);
  const artifact = store.addArtifact(design, source.files, body.name);
  return reply(artifactSchema, { artifactId: artifact.id, files: fileNames(artifact) });
};

/** POST .../artifacts/{artifactId}/files/read: names that do not exist are left out, no error. */
export const readFiles: ApiHandler<"readFiles"> = (ctx) => {
  const { artifact } = ownedArtifact(ctx);
  const { fileNames: wanted } = parseJsonBody(ctx.rawBody, ENDPOINTS.readFiles.body);
  const files = [...new Set(wanted)].flatMap((name) => {
    const content = artifact.files.get(name);
    return content === undefined ? [] : [{ name, content }];
  });
  return reply(readFilesResponseSchema, { files });
};

/**
 * POST .../artifacts/{artifactId}/publish: compiles the artifact; on success the design's
 * preview shows it, and (docs/service-facts.md#publish) it becomes the active artifact and a
 * version entry is added: here a new version holding the same files, made active. The answer
 * is `{ compiledFiles }` as a third party observed. 422 `Compilation failed: <file>:<line>:<column>: <message>`.
 */
export const publishArtifact: ApiHandler<"publish"> = async (ctx) => {
  const { design, artifact } = ownedArtifact(ctx);
  const result = await compileFiles(artifact.files, { check: ctx.services.options.compileCheck, esbuildDir: ctx.services.options.esbuildDir });
  const unchecked = result.ok && result.unchecked === true;
  const warning = notCheckedWarning(ctx.services.options.esbuildDir);
  if (unchecked) ctx.services.options.logger?.(`publish: ${warning}`);
  if (!result.ok) throw new EmulatorHttpError(422, `Compilation failed: ${result.error}`);
  const { store, options } = ctx.services;
  const previewUrl = `https://project-${design.slug}.${options.publishedHost}`;
  const publishedAt = store.now();
  const version = store.addArtifact(design, artifact.files, `Published v${artifact.version}`);
  design.previewUrl = previewUrl;
  design.publishedArtifactId = version.id;
  design.publishedAt = publishedAt;
  store.changed();
  // Without esbuild nothing was compiled: the answer says so instead of listing compiled files.
  return reply(publishResponseSchema, unchecked ? { compiledFiles: null, warning } : { compiledFiles: fileNames(artifact) });
};

/** This file's handler of each endpoint, by the table's name (api-routes.ts joins them). */
export const ARTIFACT_HANDLERS = {
  getActiveArtifact,
  writeFiles,
  createArtifact,
  readFiles,
  publish: publishArtifact,
} satisfies Partial<ApiHandlers>;
