/**
 * zod schemas for every v3 request and response: the one source of truth shared by the
 * client (validates responses, builds requests) and the emulator (validates requests, builds
 * responses). Response objects are non-strict (the real service may add fields); request
 * objects are strict so the emulator catches client bugs with a 400.
 */
import { z } from "zod";

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

/** GET /v3/designs/{editorId}/status */
export const designStatusSchema = z.object({
  isGenerating: z.boolean(),
  activeArtifactId: z.string(),
  availableFiles: z.array(z.string()),
});
export type DesignStatus = z.infer<typeof designStatusSchema>;

/** An artifact: GET active-artifact, POST artifacts. */
export const artifactSchema = z.object({
  artifactId: nonEmpty,
  files: z.array(z.string()),
});
export type Artifact = z.infer<typeof artifactSchema>;

/** One entry of the version history. `timeCreated` is epoch milliseconds (PRODUCT.md 9). */
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

/** Design system as listed by GET /v3/design-systems (shape documented by this project). */
export const designSystemSchema = z.object({
  id: nonEmpty,
  name: z.string(),
  description: z.string().optional(),
});
export type DesignSystem = z.infer<typeof designSystemSchema>;

/** One chat message (GET /v3/designs/{editorId}/messages?skip=N, 10 a page, newest first). */
export const messageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  timeCreated: z.number(),
});
export type Message = z.infer<typeof messageSchema>;

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
export const createArtifactRequestSchema = z.strictObject({ sourceArtifactId: nonEmpty, name: nonEmpty });
export type CreateArtifactRequest = z.infer<typeof createArtifactRequestSchema>;
export const readFilesRequestSchema = z.strictObject({ fileNames: z.array(z.string()) });
/** POST /v3/designs/{editorId}/prompts body. `imageUrls` mirrors create (PRODUCT.md `prompt --image`). */
export const promptRequestSchema = z.strictObject({
  prompt: nonEmpty,
  imageUrls: z.array(z.url()).optional(),
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
export const designSystemsResponseSchema = z.object({ designSystems: z.array(designSystemSchema) });
export const messagesPageSchema = z.object({ messages: z.array(messageSchema), hasMore: z.boolean() });
export type MessagesPage = z.infer<typeof messagesPageSchema>;
/** POST .../artifacts/{artifactId}/publish (shape documented by this project). */
export const publishResponseSchema = z.object({
  artifactId: nonEmpty,
  previewUrl: z.string(),
  publishedAt: z.number(),
});
export type PublishResult = z.infer<typeof publishResponseSchema>;
/** Every error body (api-v3.md section 7). */
export const errorBodySchema = z.object({ error: z.string() });

/** Versions page size, fixed by the service. */
export const VERSIONS_PAGE_SIZE = 20;
/** Messages page size (PRODUCT.md section 9). */
export const MESSAGES_PAGE_SIZE = 10;
/** Header carrying the API key. */
export const API_KEY_HEADER = "x-mp-api-key";
