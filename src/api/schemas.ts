/**
 * zod schemas for every v3 request and response: the one source of truth shared by the
 * client (validates responses, builds requests) and the emulator (validates requests, builds
 * responses). Response objects are non-strict (the real service may add fields); request
 * objects are strict so the emulator catches client bugs with a 400.
 */
import * as z from "zod";

const nonEmpty = z.string().min(1);

// ---- resources -------------------------------------------------------------------------

/** A design as returned by POST /v3/designs. */
export const designSchema = z.object({
  editorId: nonEmpty,
  editorUrl: z.string(),
  previewUrl: z.string().nullable(),
  activeArtifactId: z.string().nullable(),
  availableFiles: z.array(z.string()),
});
export type Design = z.infer<typeof designSchema>;

/**
 * GET /v3/designs/{editorId}/status. `activeArtifactId` is null until the design has a first
 * artifact: a design created with a prompt has none while its first generation runs
 * (docs/service-facts.md#status); `availableFiles` is then `[]`.
 */
export const designStatusSchema = z.object({
  isGenerating: z.boolean(),
  activeArtifactId: z.string().nullable(),
  availableFiles: z.array(z.string()),
});
export type DesignStatus = z.infer<typeof designStatusSchema>;

/** A status answer shared by another watcher (PollScheduler.follow), or undefined when malformed. */
export function parseSharedStatus(answer: unknown): DesignStatus | undefined {
  return designStatusSchema.safeParse(answer).data;
}

/** An artifact: GET active-artifact, POST artifacts. */
export const artifactSchema = z.object({
  artifactId: nonEmpty,
  files: z.array(z.string()),
});
export type Artifact = z.infer<typeof artifactSchema>;

/**
 * GET active-artifact: an artifact, or (before a design's first artifact, shape *unknown*)
 * `null` or `{ artifactId: null, ... }`; the client turns those into NO_ARTIFACT.
 */
export const activeArtifactResponseSchema = z.union([artifactSchema, z.null(), z.looseObject({ artifactId: z.null() })]);

/** One entry of the version history. `timeCreated` is epoch milliseconds (README, "What is known about the real service"). */
export const versionSchema = z.object({
  artifactId: nonEmpty,
  versionLabel: z.string().regex(/^v\d+$/),
  title: z.string(),
  timeCreated: z.number(),
});
export type Version = z.infer<typeof versionSchema>;

/** GET /v3/designs/{editorId}/versions?skip=N: 20 a page, newest first. */
export const versionsPageSchema = z.object({
  versions: z.array(versionSchema),
  hasMore: z.boolean(),
});
export type VersionsPage = z.infer<typeof versionsPageSchema>;

/** A file as read back. */
export const fileContentSchema = z.object({ name: z.string(), content: z.string() });
export type FileContent = z.infer<typeof fileContentSchema>;

/** A file as written. */
export const fileWriteSchema = z.strictObject({ fileName: nonEmpty, code: z.string() });
export type FileWrite = z.infer<typeof fileWriteSchema>;

/** One design system: `id` is `ds-<uuid>` (pass it as designSystemId); `name` matches `designSystem`. */
export const designSystemSchema = z.object({
  id: nonEmpty,
  name: z.string(),
  description: z.string().nullish(),
});
export type DesignSystem = z.infer<typeof designSystemSchema>;

/**
 * One part of a chat item's content. A text part is `{ type: "text", text }`; other part types
 * exist (an assistant item can point at the version it produced) and are kept but ignored.
 */
export const messagePartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });
export type MessagePart = z.infer<typeof messagePartSchema>;

/**
 * One chat item (GET /v3/designs/{editorId}/messages?skip=N, 10 a page, newest first;
 * docs/service-facts.md#chat-history). `role` is `user` or `assistant` (others tolerated), `app`
 * where it came from. `content` is a list of parts; a bare string is accepted too.
 */
export const messageSchema = z.object({
  id: z.string().optional(),
  role: z.string(),
  app: z.string().nullish(),
  content: z.union([z.string(), z.array(z.union([messagePartSchema, z.unknown()]))]),
  timeCreated: z.union([z.number(), z.string()]).nullish(),
});
export type Message = z.infer<typeof messageSchema>;

/** The text of a chat item: its text parts joined, every other part ignored. */
export function messageText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  const texts: string[] = [];
  for (const part of message.content) {
    const parsed = messagePartSchema.safeParse(part);
    if (parsed.success && parsed.data.type === "text" && parsed.data.text !== undefined) texts.push(parsed.data.text);
  }
  return texts.join("\n");
}

// ---- requests ----------------------------------------------------------------------------

/** POST /v3/designs body; every field optional. */
export const createDesignRequestSchema = z.strictObject({
  name: z.string().optional(),
  prompt: nonEmpty.optional(),
  imageUrls: z.array(z.url()).optional(),
  designSystemId: nonEmpty.optional(),
  designSystem: nonEmpty.optional(),
  templateId: nonEmpty.optional(),
});
export type CreateDesignRequest = z.infer<typeof createDesignRequestSchema>;

export const resolveUrlRequestSchema = z.strictObject({ url: nonEmpty });
export const writeFilesRequestSchema = z.strictObject({ files: z.array(fileWriteSchema).min(1) });
/** `description` ("what changed") is the protocol server's; REST may ignore it (docs/service-facts.md#versions-and-artifacts). */
export const createArtifactRequestSchema = z.strictObject({ sourceArtifactId: nonEmpty, name: nonEmpty, description: z.string().optional() });
export type CreateArtifactRequest = z.infer<typeof createArtifactRequestSchema>;
export const readFilesRequestSchema = z.strictObject({ fileNames: z.array(z.string()) });
/** POST /v3/designs/{editorId}/prompts body: `{ prompt }` only (images exist only on create). */
export const promptRequestSchema = z.strictObject({
  prompt: nonEmpty,
});
export type PromptRequest = z.infer<typeof promptRequestSchema>;
/** Query of the paged list endpoints. */
export const skipQuerySchema = z.coerce.number().int().min(0).default(0);

// ---- responses ---------------------------------------------------------------------------

export const healthResponseSchema = z.object({ status: z.string() });
export const resolveUrlResponseSchema = z.object({ editorId: nonEmpty });
export const writeFilesResponseSchema = z.object({ files: z.array(z.string()) });
export const readFilesResponseSchema = z.object({ files: z.array(fileContentSchema) });
export const promptResponseSchema = z.object({ requestId: nonEmpty });
/**
 * GET /v3/design-systems. The envelope is not documented (docs/service-facts.md#design-systems): a bare array, or
 * an object holding one array (`designSystems`, `items`, `data`, ...). Parsed to the list.
 */
export const designSystemsResponseSchema = z.union([z.array(designSystemSchema), z.record(z.string(), z.unknown())]).transform((body, ctx): DesignSystem[] => {
  if (Array.isArray(body)) return body;
  const preferred = ["designSystems", "items", "data", "results"].map((k) => body[k]).find(Array.isArray);
  const candidates = preferred === undefined ? Object.values(body).filter(Array.isArray) : [preferred];
  for (const list of candidates) {
    const parsed = z.array(designSystemSchema).safeParse(list);
    if (parsed.success) return parsed.data;
  }
  ctx.addIssue({ code: "custom", message: "expected a list of design systems (a bare array or an object holding one)" });
  return z.NEVER;
});
/** GET /v3/designs/{editorId}/messages?skip=N: `{ items, hasMore }`. */
export const messagesPageSchema = z.object({ items: z.array(messageSchema), hasMore: z.boolean() });
export type MessagesPage = z.infer<typeof messagesPageSchema>;
/**
 * POST .../artifacts/{artifactId}/publish. The success body is not documented (a third party
 * saw `compiledFiles`): validated loosely, and nothing is taken from it that the next status
 * or active-artifact call cannot confirm.
 */
export const publishResponseSchema = z.union([
  z.looseObject({
    previewUrl: z.string().nullish(),
    compiledFiles: z.array(z.unknown()).nullish(),
    /** The emulator's word that it did not compile-check (esbuild not installed). */
    warning: z.string().nullish(),
  }),
  z.array(z.unknown()),
  z.null(),
]);
export type PublishResponse = z.infer<typeof publishResponseSchema>;

/** What mpsync takes from a publish answer: hints for display, never sync decisions. */
export interface PublishResult {
  previewUrl: string | undefined;
  compiledFiles: string[] | undefined;
  /** Said by the service instead of compiling (the emulator without esbuild): never "compiled". */
  warning: string | undefined;
}

/** Normalizes any accepted publish answer. */
export function toPublishResult(body: PublishResponse): PublishResult {
  if (body === null || Array.isArray(body)) return { previewUrl: undefined, compiledFiles: undefined, warning: undefined };
  const files = body.compiledFiles?.filter((f): f is string => typeof f === "string");
  return { previewUrl: body.previewUrl ?? undefined, compiledFiles: files, warning: body.warning ?? undefined };
}
/** Every error body (docs/service-facts.md#errors). */
export const errorBodySchema = z.object({ error: z.string() });

/** Versions page size, fixed by the service. */
export const VERSIONS_PAGE_SIZE = 20;
/** Messages page size (README, "What is known about the real service"). */
export const MESSAGES_PAGE_SIZE = 10;
/** Header carrying the API key. */
export const API_KEY_HEADER = "x-mp-api-key";
