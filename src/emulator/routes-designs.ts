/** v3 handlers about designs as a whole: health, create, resolve-url, lists, status, prompts. */
import {
  designSchema,
  designStatusSchema,
  designSystemsResponseSchema,
  healthResponseSchema,
  MESSAGES_PAGE_SIZE,
  messagesPageSchema,
  promptResponseSchema,
  resolveUrlResponseSchema,
  VERSIONS_PAGE_SIZE,
  versionsPageSchema,
  type CreateDesignRequest,
} from "../api/schemas.js";
import { ENDPOINTS } from "../api/endpoints.js";
import { fileNames, ownedDesign, reply, requireAccess, type ApiContext, type ApiHandler, type ApiHandlers } from "./api-context.js";
import { badRequest, EmulatorHttpError, notFound } from "./http-error.js";
import { parseJsonBody, validate } from "./http-io.js";
import { scaffoldFiles } from "./scaffold.js";
import type { EmulatorStore } from "./store.js";
import type { StoredDesign } from "./types.js";
import { parseDesignUrl } from "./url-resolution.js";

/** GET /v3/health */
export const getHealth: ApiHandler<"health"> = () => reply(healthResponseSchema, { status: "ok" });

/**
 * POST /v3/designs. With a prompt the design has no artifact until its first generation ends
 * (docs/service-facts.md#status): the answer, status and active-artifact all say so
 * (activeArtifactId null, availableFiles [], active-artifact 404). The generation builds on
 * the template or the blank scaffold. The credit is taken first, so a 402 leaves no design.
 */
export const createDesign: ApiHandler<"createDesign"> = (ctx) => {
  const body = parseJsonBody(ctx.rawBody, ENDPOINTS.createDesign.body);
  const { store, runner } = ctx.services;
  const designSystemId = resolveDesignSystem(store, body);
  const template = body.templateId === undefined ? undefined : requireAccess(ctx, store.requireDesign(body.templateId));
  if (body.prompt !== undefined) store.spendCredit(ctx.owner);
  const givenName = body.name?.trim() ? body.name : undefined;
  const name = givenName ?? "Untitled";
  const files = template === undefined ? scaffoldFiles(name) : store.requireArtifact(template).files;
  if (body.prompt === undefined) {
    const design = store.createDesign({ owner: ctx.owner, name, files, title: givenName ?? "Initial version", designSystemId });
    return reply(designSchema, designView(ctx, design));
  }
  const design = store.createDesign({ owner: ctx.owner, name, files: null, title: givenName ?? "Initial version", designSystemId });
  runner.start(design, body.prompt, { autoFinish: true, firstFiles: files });
  return reply(designSchema, designView(ctx, design));
};

/** `designSystemId` wins over `designSystem` (a name, case-insensitive); either must exist. */
function resolveDesignSystem(store: EmulatorStore, body: CreateDesignRequest): string | null {
  const systems = store.designSystems();
  if (body.designSystemId !== undefined) {
    if (!systems.some((ds) => ds.id === body.designSystemId)) {
      throw badRequest(`Unknown designSystemId ${body.designSystemId}: see GET /v3/design-systems`);
    }
    return body.designSystemId;
  }
  if (body.designSystem === undefined) return null;
  const wanted = body.designSystem.toLowerCase();
  const found = systems.find((ds) => ds.name.toLowerCase() === wanted);
  if (found === undefined) throw badRequest(`Unknown designSystem "${body.designSystem}": see GET /v3/design-systems`);
  return found.id;
}

function designView(
  ctx: ApiContext,
  design: StoredDesign,
): {
  editorId: string;
  editorUrl: string;
  previewUrl: string | null;
  activeArtifactId: string | null;
  availableFiles: string[];
} {
  const active = design.activeArtifactId === null ? undefined : ctx.services.store.requireArtifact(design);
  return {
    editorId: design.editorId,
    editorUrl: `${ctx.services.options.appUrl}/c/${design.editorId}`,
    previewUrl: design.previewUrl,
    activeArtifactId: active?.id ?? null,
    availableFiles: active === undefined ? [] : fileNames(active),
  };
}

/** POST /v3/designs/resolve-url. A published URL only resolves once the design was published. */
export const resolveUrl: ApiHandler<"resolveUrl"> = (ctx) => {
  const { url } = parseJsonBody(ctx.rawBody, ENDPOINTS.resolveUrl.body);
  const target = parseDesignUrl(url, ctx.services.options);
  const designs = [...ctx.services.store.designs()];
  let design: StoredDesign | undefined;
  if (target?.kind === "editor") design = ctx.services.store.findDesign(target.editorId);
  if (target?.kind === "published") design = designs.find((d) => d.slug === target.slug && d.previewUrl !== null);
  if (target?.kind === "canvas") design = designs.find((d) => d.canvasId === target.canvasId);
  if (design === undefined) throw notFound(`No design found for URL ${url}`);
  requireAccess(ctx, design);
  return reply(resolveUrlResponseSchema, { editorId: design.editorId });
};

/** GET /v3/design-systems */
export const listDesignSystems: ApiHandler<"listDesignSystems"> = (ctx) => {
  // The real envelope is undocumented; the client accepts a bare array or any object holding
  // one. The reply passes through the client schema, so the emulator answers the bare array.
  const designSystems = [...ctx.services.store.designSystems()].map((ds) => ({ id: ds.id, name: ds.name }));
  return reply(designSystemsResponseSchema, { designSystems });
};

function skipOf(ctx: ApiContext): number {
  return validate(ENDPOINTS.listVersions.skip, ctx.query.get("skip") ?? undefined, "query.skip");
}

function newestFirstPage<T>(items: readonly T[], skip: number, size: number): { page: T[]; hasMore: boolean } {
  const newestFirst = [...items].reverse();
  return { page: newestFirst.slice(skip, skip + size), hasMore: skip + size < newestFirst.length };
}

/** GET /v3/designs/{editorId}/versions?skip=N: 20 a page, newest first. */
export const listVersions: ApiHandler<"listVersions"> = (ctx) => {
  const design = ownedDesign(ctx);
  const { page, hasMore } = newestFirstPage([...design.artifacts.values()], skipOf(ctx), VERSIONS_PAGE_SIZE);
  const versions = page.map((a) => ({
    artifactId: a.id,
    versionLabel: `v${a.version}`,
    title: a.title,
    timeCreated: a.timeCreated,
  }));
  return reply(versionsPageSchema, { versions, hasMore });
};

/** GET /v3/designs/{editorId}/messages?skip=N: 10 a page, newest first. */
export const listMessages: ApiHandler<"listMessages"> = (ctx) => {
  const design = ownedDesign(ctx);
  const { page, hasMore } = newestFirstPage(design.messages, skipOf(ctx), MESSAGES_PAGE_SIZE);
  const items = page.map((m) => ({
    id: m.id,
    role: m.role,
    app: "api",
    // A list of parts (docs/service-facts.md#chat-history); an assistant item that produced a
    // version also points at it, in a part type clients must be ready to ignore.
    content: [{ type: "text", text: m.content }, ...(m.artifactId === undefined ? [] : [{ type: "artifact", artifactId: m.artifactId }])],
    timeCreated: m.timeCreated,
  }));
  return reply(messagesPageSchema, { items, hasMore });
};

/** GET /v3/designs/{editorId}/status; with strictPoll, 429 + Retry-After to early polls. */
export const getStatus: ApiHandler<"getStatus"> = (ctx) => {
  const design = ownedDesign(ctx);
  const { options, pollLimiter, store } = ctx.services;
  if (options.strictPoll) {
    const retryAfterSec = pollLimiter.check(ctx.owner, design.editorId, store.now());
    if (retryAfterSec !== undefined) {
      throw new EmulatorHttpError(429, `Status polled too often: at most one poll every ${options.minPollIntervalMs} ms`, {
        "retry-after": String(retryAfterSec),
      });
    }
  }
  const active = design.activeArtifactId === null ? undefined : store.requireArtifact(design);
  return reply(designStatusSchema, {
    isGenerating: design.generation !== null,
    activeArtifactId: active?.id ?? null,
    availableFiles: active === undefined ? [] : fileNames(active),
  });
};

/** POST /v3/designs/{editorId}/prompts: 409 while generating (no credit taken), 402 without credits. */
export const sendPrompt: ApiHandler<"sendPrompt"> = (ctx) => {
  const design = ownedDesign(ctx);
  const body = parseJsonBody(ctx.rawBody, ENDPOINTS.sendPrompt.body);
  const { store, runner } = ctx.services;
  runner.assertIdle(design);
  store.spendCredit(ctx.owner);
  const requestId = runner.start(design, body.prompt, { autoFinish: true });
  return reply(promptResponseSchema, { requestId });
};

/** This file's handler of each endpoint, by the table's name (api-routes.ts joins them). */
export const DESIGN_HANDLERS = {
  health: getHealth,
  createDesign,
  resolveUrl,
  listDesignSystems,
  listVersions,
  listMessages,
  getStatus,
  sendPrompt,
} satisfies Partial<ApiHandlers>;
