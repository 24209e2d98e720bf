/** The typed v3 client's surface, implemented over HTTP by createClient (client.ts). */
import type {
  Artifact,
  CreateArtifactRequest,
  CreateDesignRequest,
  Design,
  DesignStatus,
  DesignSystem,
  FileContent,
  FileWrite,
  MessagesPage,
  PromptRequest,
  PublishResult,
  Version,
  VersionsPage,
} from "./schemas.js";

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of readFiles. */
export interface ReadFilesOptions extends CallOptions {
  /**
   * Told of a file whose answer alone is too large (413, or past the client's size cap): it is
   * left out of the result. Without it, such a file fails the whole read.
   */
  onTooLarge?: (name: string) => void;
}

/** Every v3 endpoint as a typed method. Errors are ApiError (errors.ts). */
export interface V3Client {
  /** GET /v3/health */
  health(options?: CallOptions): Promise<{ status: string }>;
  /**
   * Opens a connection ahead of a request that is about to come (a save in its debounce) when
   * the client has been idle long enough for its keep-alive connection to be gone: one
   * GET /v3/health, which changes nothing on the service; errors are ignored.
   */
  warm?(): void;
  /** POST /v3/designs. With a prompt this starts a generation and is never retried. */
  createDesign(body: CreateDesignRequest, options?: CallOptions): Promise<Design>;
  /** POST /v3/designs/resolve-url */
  resolveUrl(url: string, options?: CallOptions): Promise<string>;
  /** GET /v3/designs/{editorId}/versions?skip=N (one page of 20, newest first). */
  listVersions(editorId: string, skip?: number, options?: CallOptions): Promise<VersionsPage>;
  /** Every version, newest first, paging with skip until hasMore is false. */
  listAllVersions(editorId: string, options?: CallOptions): Promise<Version[]>;
  /** GET /v3/designs/{editorId}/status (raw; rate limiting per design is the poll scheduler's job). */
  getStatus(editorId: string, options?: CallOptions): Promise<DesignStatus>;
  /** GET /v3/designs/{editorId}/active-artifact */
  getActiveArtifact(editorId: string, options?: CallOptions): Promise<Artifact>;
  /** PATCH /v3/designs/{editorId}/artifacts/{artifactId}/files; returns the artifact's file names. */
  writeFiles(editorId: string, artifactId: string, files: FileWrite[], options?: CallOptions): Promise<string[]>;
  /** POST /v3/designs/{editorId}/artifacts: clone, and the clone becomes active. */
  createArtifact(editorId: string, body: CreateArtifactRequest, options?: CallOptions): Promise<Artifact>;
  /** POST .../artifacts/{artifactId}/files/read, batched; missing names are left out. */
  readFiles(editorId: string, artifactId: string, fileNames: string[], options?: ReadFilesOptions): Promise<FileContent[]>;
  /** POST /v3/designs/{editorId}/prompts. Starts a generation; never retried. */
  sendPrompt(editorId: string, body: PromptRequest, options?: CallOptions): Promise<{ requestId: string }>;
  /** POST .../artifacts/{artifactId}/publish; 422 (UNPROCESSABLE) carries the compiler message. */
  publish(editorId: string, artifactId: string, options?: CallOptions): Promise<PublishResult>;
  /** GET /v3/design-systems */
  listDesignSystems(options?: CallOptions): Promise<DesignSystem[]>;
  /** GET /v3/designs/{editorId}/messages?skip=N (10 a page, newest first). */
  listMessages(editorId: string, skip?: number, options?: CallOptions): Promise<MessagesPage>;
}
