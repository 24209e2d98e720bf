/**
 * The typed v3 client over undici: zod-validated requests and responses, typed errors, one
 * retry policy, and every HTTP attempt through the API key's request queue.
 */
import { setMaxListeners } from "node:events";
import type { z } from "zod";
import { createSilentLogger } from "../log/logger.js";
import { createSystemClock } from "../core/clock.js";
import { createRequestQueue } from "../scheduling/request-queue.js";
import type { CallOptions, ReadFilesOptions } from "./client-types.js";
import { endpointLabel, ENDPOINTS, expandPath, type Endpoint } from "./endpoints.js";
import { ApiError, hasCode, MpsyncError } from "./errors.js";
import type { Agent } from "undici";
import { createDefaultAgent, createPreconnector, DEFAULT_TIMEOUTS, MAX_RESPONSE_BYTES, type Timeouts } from "./http-transport.js";
import { RequestExecutor } from "./request-executor.js";
import {
  type Artifact,
  type CreateArtifactRequest,
  type CreateDesignRequest,
  type Design,
  type DesignStatus,
  type DesignSystem,
  type FileContent,
  type FileWrite,
  type MessagesPage,
  type PromptRequest,
  type PublishResult,
  toPublishResult,
  type Version,
  type VersionsPage,
} from "./schemas.js";

export { CLOSE_GRACE_MS, MAX_LISTED_VERSIONS, READ_FILES_BATCH_SIZE, type ClientOptions, type ClosableV3Client } from "./client-options.js";
import {
  CLOSE_GRACE_MS,
  MAX_LISTED_VERSIONS,
  normaliseBaseUrl,
  positive,
  READ_FILES_BATCH_SIZE,
  resolveRetry,
  type ClientOptions,
  type ClosableV3Client,
} from "./client-options.js";

/**
 * Idle time after which a keep-alive connection may be gone (undici's default keep-alive is
 * 4 s, and servers close idle connections on their own terms): warm() then opens connections.
 */
const WARM_AFTER_IDLE_MS = 3_000;

/**
 * Connections warm() opens: a push sends its active-artifact call and its read side by side,
 * and its PATCH goes out as their answers end, often before undici counts their connections
 * free again (measured: a third connection opened there).
 */
export const WARM_CONNECTIONS = 3;

/** Creates the typed v3 client. */
export function createClient(options: ClientOptions): ClosableV3Client {
  if (typeof options.apiKey !== "string") throw new TypeError("apiKey must be a string");
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  for (const [name, value] of Object.entries(timeouts)) positive(`timeouts.${name}`, value);
  const clock = options.clock ?? createSystemClock();
  const preconnector = options.dispatcher === undefined ? createPreconnector(timeouts) : undefined;
  const ownedAgent = options.dispatcher === undefined ? createDefaultAgent(timeouts, preconnector) : undefined;
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const executor = new RequestExecutor({
    baseUrl,
    apiKey: options.apiKey,
    userAgent: options.userAgent ?? `mpsync (node ${process.version})`,
    dispatcher: options.dispatcher ?? (ownedAgent as Agent),
    queue: options.queue ?? createRequestQueue({ concurrency: 4, clock }),
    logger: options.logger ?? createSilentLogger(),
    clock,
    random: options.random ?? Math.random,
    timeouts,
    retry: resolveRetry(options.retry),
    maxBodyBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    budget: options.budget,
  });
  const warmer = preconnector === undefined ? undefined : () => preconnector.open(new URL(baseUrl).origin, WARM_CONNECTIONS);
  return new HttpV3Client(executor, ownedAgent, options.readBatchSize ?? READ_FILES_BATCH_SIZE, { warmer, close: () => preconnector?.close() });
}

/** A request that fails the request schema: a caller bug or bad user input, never sent. */
function invalidRequest(endpoint: Endpoint<unknown>, why: string): ApiError {
  const name = endpointLabel(endpoint);
  return new ApiError({
    code: "BAD_REQUEST",
    message: `invalid request to ${name}: ${why}`,
    endpoint: name,
    retryable: false,
    request: { method: endpoint.method, url: endpoint.template },
  });
}

function validated<S extends z.ZodType>(endpoint: Endpoint<unknown>, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join(".") || "(body)";
  throw invalidRequest(endpoint, `${path}: ${issue?.message ?? "invalid"}`);
}

function pathOf(endpoint: Endpoint<unknown>, params: Record<string, string>): string {
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== "string" || value === "") throw invalidRequest(endpoint, `${name} must be a non-empty string`);
  }
  return expandPath(endpoint.template, params);
}

class HttpV3Client implements ClosableV3Client {
  readonly #executor: RequestExecutor;
  readonly #ownedAgent: Agent | undefined;
  readonly #readBatchSize: number;
  readonly #sockets: { warmer: (() => void) | undefined; close: () => void };

  constructor(
    executor: RequestExecutor,
    ownedAgent: Agent | undefined,
    readBatchSize: number,
    sockets: { warmer: (() => void) | undefined; close: () => void },
  ) {
    this.#readBatchSize = readBatchSize;
    this.#executor = executor;
    this.#ownedAgent = ownedAgent;
    this.#sockets = sockets;
  }

  /** Waits briefly for requests in flight, then aborts them: a stop must never hang on one. */
  async close(): Promise<void> {
    const agent = this.#ownedAgent;
    this.#sockets.close();
    if (agent === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const graceful = await Promise.race([
      agent.close().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_GRACE_MS))),
    ]);
    clearTimeout(timer);
    if (!graceful) await agent.destroy();
  }

  /**
   * Local activity began (a push may follow the debounce): after an idle, opens the connections
   * a push uses without sending anything (preconnect.ts); with a caller's dispatcher, which
   * cannot be pre-connected, a health request opens one.
   */
  warm(): void {
    if (!this.#executor.idleLongerThan(WARM_AFTER_IDLE_MS)) return;
    if (this.#sockets.warmer !== undefined) this.#sockets.warmer();
    else this.health().catch(() => undefined);
  }

  async health(options: CallOptions = {}): Promise<{ status: string }> {
    return this.#executor.execute({ endpoint: ENDPOINTS.health, path: "/v3/health", signal: options.signal });
  }

  async createDesign(body: CreateDesignRequest, options: CallOptions = {}): Promise<Design> {
    const endpoint = ENDPOINTS.createDesign;
    const request = validated(endpoint, endpoint.body, body);
    return this.#executor.execute({
      endpoint,
      path: endpoint.template,
      body: request,
      generation: request.prompt !== undefined,
      signal: options.signal,
    });
  }

  async resolveUrl(url: string, options: CallOptions = {}): Promise<string> {
    const endpoint = ENDPOINTS.resolveUrl;
    const body = validated(endpoint, endpoint.body, { url });
    const res = await this.#executor.execute({ endpoint, path: endpoint.template, body, signal: options.signal });
    return res.editorId;
  }

  async listVersions(editorId: string, skip = 0, options: CallOptions = {}): Promise<VersionsPage> {
    const endpoint = ENDPOINTS.listVersions;
    const query = { skip: String(validated(endpoint, endpoint.skip, skip)) };
    const path = pathOf(endpoint, { editorId });
    return this.#executor.execute({ endpoint, path, query, signal: options.signal });
  }

  async listAllVersions(editorId: string, options: CallOptions = {}): Promise<Version[]> {
    const all: Version[] = [];
    for (;;) {
      const page = await this.listVersions(editorId, all.length, options);
      all.push(...page.versions);
      // A server that never says hasMore=false (or pages nothing) must not loop forever.
      if (!page.hasMore || page.versions.length === 0 || all.length >= MAX_LISTED_VERSIONS) break;
    }
    return all.slice(0, MAX_LISTED_VERSIONS);
  }

  async getStatus(editorId: string, options: CallOptions = {}): Promise<DesignStatus> {
    const endpoint = ENDPOINTS.getStatus;
    return this.#executor.execute({ endpoint, path: pathOf(endpoint, { editorId }), signal: options.signal });
  }

  async getActiveArtifact(editorId: string, options: CallOptions = {}): Promise<Artifact> {
    const endpoint = ENDPOINTS.getActiveArtifact;
    let res;
    for (let attempt = 1; ; attempt++) {
      try {
        res = await this.#executor.execute({ endpoint, path: pathOf(endpoint, { editorId }), signal: options.signal });
        break;
      } catch (err) {
        // What active-artifact answers before a first artifact is unknown (docs/service-facts.md#status): a
        // 404 there is "nothing yet" when status confirms the design exists with no artifact.
        // One extra status call, only on this path.
        if (!(err instanceof ApiError) || err.code !== "NOT_FOUND") throw err;
        const status = await this.getStatus(editorId, options).catch(() => undefined);
        if (status?.activeArtifactId === null) throw noArtifactYet(editorId, status.isGenerating);
        // The first version landed between the two calls: read it once more.
        if (attempt === 1 && status !== undefined) continue;
        throw err;
      }
    }
    if (res === null || typeof res.artifactId !== "string") throw noArtifactYet(editorId, undefined);
    return res as Artifact;
  }

  async writeFiles(editorId: string, artifactId: string, files: FileWrite[], options: CallOptions = {}): Promise<string[]> {
    const endpoint = ENDPOINTS.writeFiles;
    const body = validated(endpoint, endpoint.body, { files });
    const path = pathOf(endpoint, { editorId, artifactId });
    const res = await this.#executor.execute({ endpoint, path, body, signal: options.signal });
    return res.files;
  }

  async createArtifact(editorId: string, body: CreateArtifactRequest, options: CallOptions = {}): Promise<Artifact> {
    const endpoint = ENDPOINTS.createArtifact;
    const request = validated(endpoint, endpoint.body, body);
    const path = pathOf(endpoint, { editorId });
    return this.#executor.execute({ endpoint, path, body: request, signal: options.signal });
  }

  async readFiles(editorId: string, artifactId: string, fileNames: string[], options: ReadFilesOptions = {}): Promise<FileContent[]> {
    const endpoint = ENDPOINTS.readFiles;
    const names = validated(endpoint, endpoint.body, { fileNames }).fileNames;
    const path = pathOf(endpoint, { editorId, artifactId });
    if (names.length === 0) return [];
    // One failed batch cancels its siblings instead of leaving them running unobserved.
    const batchAbort = new AbortController();
    const signal = options.signal === undefined ? batchAbort.signal : AbortSignal.any([options.signal, batchAbort.signal]);
    const batches: string[][] = [];
    for (let i = 0; i < names.length; i += this.#readBatchSize) batches.push(names.slice(i, i + this.#readBatchSize));
    // Every batch listens on the shared signal; without this Node warns past 10 batches.
    setMaxListeners(batches.length + 10, signal);
    // A batch whose answer is too large (413, or past the size cap: a few big files) is read
    // again in halves; a single file too large is left to onTooLarge.
    const read = async (batch: string[]): Promise<FileContent[]> => {
      try {
        return (await this.#executor.execute({ endpoint, path, body: { fileNames: batch }, signal })).files;
      } catch (err) {
        if (!hasCode(err, "TOO_LARGE")) throw err;
        if (batch.length > 1) {
          const middle = Math.ceil(batch.length / 2);
          return (await Promise.all([read(batch.slice(0, middle)), read(batch.slice(middle))])).flat();
        }
        const [only] = batch;
        if (only === undefined || options.onTooLarge === undefined) throw err;
        options.onTooLarge(only);
        return [];
      }
    };
    try {
      const results = await Promise.all(
        batches.map((batch) =>
          read(batch).catch((err: unknown) => {
            batchAbort.abort(err);
            throw err;
          }),
        ),
      );
      return results.flat();
    } finally {
      batchAbort.abort();
    }
  }

  async sendPrompt(editorId: string, body: PromptRequest, options: CallOptions = {}): Promise<{ requestId: string }> {
    const endpoint = ENDPOINTS.sendPrompt;
    const request = validated(endpoint, endpoint.body, body);
    const path = pathOf(endpoint, { editorId });
    return this.#executor.execute({ endpoint, path, body: request, generation: true, signal: options.signal });
  }

  async publish(editorId: string, artifactId: string, options: CallOptions = {}): Promise<PublishResult> {
    const endpoint = ENDPOINTS.publish;
    const path = pathOf(endpoint, { editorId, artifactId });
    return toPublishResult(await this.#executor.execute({ endpoint, path, body: {}, signal: options.signal }));
  }

  async listDesignSystems(options: CallOptions = {}): Promise<DesignSystem[]> {
    const endpoint = ENDPOINTS.listDesignSystems;
    return this.#executor.execute({ endpoint, path: endpoint.template, signal: options.signal });
  }

  async listMessages(editorId: string, skip = 0, options: CallOptions = {}): Promise<MessagesPage> {
    const endpoint = ENDPOINTS.listMessages;
    const query = { skip: String(validated(endpoint, endpoint.skip, skip)) };
    const path = pathOf(endpoint, { editorId });
    return this.#executor.execute({ endpoint, path, query, signal: options.signal });
  }
}

/** The design has no artifact yet (a prompted design's first generation is running). */
function noArtifactYet(editorId: string, generating: boolean | undefined): MpsyncError {
  const why = generating === false ? "its first generation ended without a result" : "its first generation is still running";
  return new MpsyncError("NO_ARTIFACT", `design ${editorId} has no version yet (${why}): nothing to pull yet`, {
    hint: generating === false ? "send a prompt (mpsync prompt) or open it in the web editor" : "wait for it (mpsync status shows when it is idle), then pull",
  });
}
