/** Shared types of the emulator: options, faults, the in-memory model and the request log. */

/** `auto`: compress an answer when the request asks (emulator/compression.ts); `off`: never. */
export type CompressMode = "auto" | "off";

/** Random faults applied to every `/api` request (never to `/__control`). */
export interface FaultOptions {
  /** Fixed delay before each request is handled. @default 0 */
  latencyMs?: number;
  /**
   * Time a new connection takes before it carries a request, counted from its accept: the TCP
   * and TLS handshakes of a real service (2 round trips) that loopback does not cost. A
   * connection opened ahead of its request (a client's pre-connect) has paid part or all of it.
   * @default 0
   */
  handshakeMs?: number;
  /** Probability (0..1) of answering a random 500 or 503 instead of handling. @default 0 */
  errorRate?: number;
  /** Probability (0..1) of destroying the socket without an answer. @default 0 */
  dropRate?: number;
  /** Seed of the deterministic RNG behind errorRate and dropRate; random when left out. */
  seed?: number;
}

/** Options of startEmulator. */
export interface EmulatorOptions {
  /** @default 0 (an ephemeral port) */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** Accepted API keys; empty or left out: any non-empty key ("open mode"). Each key is its own account. */
  keys?: string[];
  /** How long a generation runs. @default 3000 */
  generationMs?: number;
  /** JSON persistence: loaded at start when present, saved atomically (debounced) after changes and on close. */
  dataFile?: string;
  /** Answer 429 + Retry-After to status polls of one design by one key closer than minPollIntervalMs. */
  strictPoll?: boolean;
  /** @default 60000 */
  minPollIntervalMs?: number;
  /** Starting credits of each key. @default 1000 */
  credits?: number;
  faults?: FaultOptions;
  /**
   * Request bodies larger than this are answered 413. The service's limit is not documented
   * (16 MB and more were accepted, docs/service-facts.md#files). @default 64 MiB
   */
  maxBodyBytes?: number;
  /** @default "https://www.magicpatterns.com" */
  appUrl?: string;
  /** @default "magicpatterns.app" */
  publishedHost?: string;
  /** Receives one line per request (never the key). */
  logger?: (line: string) => void;
  /** Compile-check publishes with esbuild when it is installed; false acts as if it were not (tests). @default true */
  compileCheck?: boolean;
  /** A folder whose node_modules may hold esbuild, tried after mpsync's own (`mpsync emulator`: where it runs). */
  esbuildDir?: string;
  /**
   * Answers of 1 KiB and more are compressed (brotli, gzip or deflate) when the request's
   * Accept-Encoding allows; "off" answers plain, as a service without compression would. Whether
   * the real service compresses is unknown: "auto" is what a web server or CDN in front of an
   * API commonly does, and it keeps the client's decoding path under every test.
   * @default "auto"
   */
  compress?: CompressMode;
}

/** Options with every default applied. */
export interface ResolvedOptions {
  port: number;
  host: string;
  keys: readonly string[];
  generationMs: number;
  dataFile: string | undefined;
  strictPoll: boolean;
  minPollIntervalMs: number;
  credits: number;
  faults: FaultOptions;
  maxBodyBytes: number;
  appUrl: string;
  publishedHost: string;
  logger: ((line: string) => void) | undefined;
  compileCheck: boolean;
  esbuildDir: string | undefined;
  compress: CompressMode;
}

/** Which requests a failNext rule applies to. A string path matches the exact path (no query). */
export interface FaultMatch {
  method?: string;
  path?: RegExp | string;
}

/**
 * A 200 answer that is not what the endpoint promises. `corrupt-encoding`: a gzip body that is
 * no gzip; `unknown-encoding`: the JSON labelled with a coding the client never asked for (zstd).
 */
export type MalformedKind = "html" | "truncated" | "wrong-shape" | "invalid-json" | "corrupt-encoding" | "unknown-encoding";

/**
 * A one-off fault. `drop` with `after: true` handles the request first, then drops the answer;
 * with `late: true` it drops the answer and handles the request only when `applyLateWrites` is
 * called (a request the service held past the client's timeout, then applied).
 */
export type InjectedFault =
  | { status: number; body?: string; retryAfter?: string }
  | { drop: true; after?: boolean; late?: boolean }
  | { malformed: MalformedKind }
  | { hang: true }
  | { delayMs: number };

/** One handled `/api` request. `status` 0: no answer was sent (dropped or hung). */
export interface RequestLogEntry {
  method: string;
  /** Path without the `/api` prefix and without the query, e.g. `/v3/designs/abc/status`. */
  path: string;
  /** The query string including `?`, or "". */
  search: string;
  status: number;
  /** Epoch milliseconds when the answer was decided. */
  at: number;
  /** This process's monotonic clock (performance.now) when the whole request had arrived, and when its answer was decided: sub-millisecond, for benchmarks. */
  receivedMs: number;
  answeredMs: number;
  /** Set when an injected or random fault decided the answer. */
  fault?: "status" | "drop" | "malformed" | "hang" | "random-error" | "random-drop";
}

/** Options of waitForRequest. */
export interface WaitForRequestOptions {
  /** @default 5000 */
  timeoutMs?: number;
  /** Also match requests already in the log. @default false */
  includePast?: boolean;
}

/** An artifact is also a version: `version` is its 1-based position in the design's history. */
export interface StoredArtifact {
  id: string;
  version: number;
  title: string;
  timeCreated: number;
  /** Map, not object: hostile names such as `__proto__` must stay plain keys. */
  files: Map<string, string>;
}

/** A chat item of a design. */
export interface StoredMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  timeCreated: number;
  /** The artifact an assistant item produced (a generation that made a version). */
  artifactId?: string | undefined;
}

/** A generation in flight (serialisable; the timer lives in the generation runner). */
export interface GenerationRun {
  requestId: string;
  prompt: string;
  startedAt: number;
  /** False when started by the control API without a timer (finished by finishGeneration). */
  autoFinish: boolean;
  /** Files a design's first generation builds on (it has no artifact yet). */
  firstFiles?: [string, string][] | undefined;
}

/** One design. `owner` is a hash of the creating key, never the key itself. */
export interface StoredDesign {
  editorId: string;
  owner: string;
  name: string;
  canvasId: string;
  /** Label of the published host, `project-<slug>`; resolvable once published. */
  slug: string;
  designSystemId: string | null;
  artifacts: Map<string, StoredArtifact>;
  /** Null until the first artifact: a prompted design has none while its first generation runs. */
  activeArtifactId: string | null;
  previewUrl: string | null;
  publishedArtifactId: string | null;
  publishedAt: number | null;
  messages: StoredMessage[];
  generation: GenerationRun | null;
}
