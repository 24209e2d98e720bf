/**
 * The composition root: builds every real adapter (config, key, client, queues, schedulers,
 * per-folder stores and trees) lazily, so a command pays only for what it uses. Commands get
 * a Runtime; nothing else constructs infrastructure.
 */
import type { DestinationStream, LevelWithSilent } from "pino";
import { join } from "node:path";
import type { V3Client } from "./api/client-types.js";
import { createClient } from "./api/client.js";
import type { RetryOptions } from "./api/retry-policy.js";
import { MpsyncError } from "./core/errors.js";
import { loadConfig, type LoadedConfig } from "./config/load-config.js";
import { mappingAt, mappingsOf, selectMappings, type Mapping } from "./config/mappings.js";
import { noApiKeyError, resolveApiKey, storedAddresses, type ResolvedApiKey } from "./config/api-key.js";
import { openSystemKeychain, type KeychainOpening, type OpenKeychain } from "./config/keychain.js";
import { stateHome } from "./config/paths.js";
import { ConfigMissingError } from "./config/config-error.js";
import { DEFAULT_BASE_URL } from "./config/schema.js";
import { isLoopbackUrl, LOOPBACK_DEFAULT_POLL_SEC, MIN_POLL_INTERVAL_SEC } from "./config/poll-floor.js";
import { createLogger, type Logger } from "./log/logger.js";
import { createSystemClock, type Clock } from "./core/clock.js";
import { createHeapSettler } from "./core/heap.js";
import { createFileGenerationLedger, GenerationBudget } from "./scheduling/generation-budget.js";
import { createFilePollLedger, PollScheduler } from "./scheduling/poll-scheduler.js";
import { RequestQueueRegistry, type RequestQueue } from "./scheduling/request-queue.js";
import { DesignSync } from "./sync/design-sync.js";
import type { EventSink } from "./sync/events.js";
import { lateWriteLine, observeLocalWrites, openFsFolder } from "./sync/fs-adapters.js";
import type { LateWrite } from "./local/late-writes.js";
import { INTERRUPT_WAIT_MS, OpenedFolders } from "./sync/opened-folders.js";

/** Process-level inputs; only bin.ts reads them from `process`. */
export interface RuntimeOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  configPath?: string | undefined;
  logLevel?: LevelWithSilent | undefined;
  logDestination?: DestinationStream | undefined;
  /** Write logs to this file (rotated by size) instead of stderr. */
  logFile?: string | undefined;
  clock?: Clock | undefined;
  /** The client's request retries (tests pass short waits; the waits are scheduling/backoff.ts's). @default DEFAULT_RETRY_OPTIONS */
  retry?: Partial<RetryOptions> | undefined;
  /** The OS keychain (tests pass one of their own). @default openSystemKeychain */
  keychain?: OpenKeychain | undefined;
  /** Told every mapping list the config gives (the CLI labels folders with it). */
  onMappings?: ((mappings: readonly Mapping[]) => void) | undefined;
}

export type { WriteObserver } from "./sync/fs-adapters.js";

/** One mapping of .syncrc with its absolute folder (config/mappings.ts). */
export type { Mapping } from "./config/mappings.js";

/** Lazily built infrastructure for one CLI invocation or daemon. */
export class Runtime {
  readonly options: RuntimeOptions;
  readonly clock: Clock;
  readonly queues: RequestQueueRegistry;
  #config: LoadedConfig | undefined;
  /** The key in effect, looked up on first need (a command that sends no request reads no store). */
  #keyInfo: Promise<ResolvedApiKey | undefined> | undefined;
  #keyResolved: ResolvedApiKey | undefined;
  #keychain: Promise<KeychainOpening> | undefined;
  /** Values the logger scrubs; the key joins once it is read. */
  readonly #secrets: string[] = [];
  #logger: Logger | undefined;
  #client: (V3Client & { close(): Promise<void> }) | undefined;
  #poller: PollScheduler | undefined;
  /** Every folder this process opened (interrupt() stops their writes). */
  readonly #folders: OpenedFolders;
  /** One for the process: a collection is process-wide, however many designs asked. */
  #settleHeap: (() => void) | undefined;
  /** Requests fail at the first error, with a short connect (failFast). */
  #failFast = false;

  constructor(options: RuntimeOptions) {
    this.options = options;
    this.clock = options.clock ?? createSystemClock();
    this.queues = new RequestQueueRegistry({ clock: this.clock });
    this.#folders = new OpenedFolders(this.clock);
  }

  /** The loaded .syncrc (throws CONFIG_INVALID). */
  async config(): Promise<LoadedConfig> {
    this.#config ??= await loadConfig({ cwd: this.options.cwd, configPath: this.options.configPath, env: this.options.env });
    return this.#config;
  }

  /** The config when one is found, undefined when there is none (commands that work without). */
  async configIfAny(): Promise<LoadedConfig | undefined> {
    try {
      return await this.config();
    } catch (err) {
      // None found, or a named one not there yet (`init -c PATH` creates it): commands that work
      // without a config go on; those that need one call config() and say it is missing.
      if (err instanceof ConfigMissingError) return undefined;
      throw err;
    }
  }

  /** Reads the config when there is a valid one, so `baseUrl()` counts its `baseUrl`. */
  async prepare(): Promise<void> {
    await this.configIfAny().catch(() => undefined);
  }

  /**
   * The OS keychain, opened once per process and only when asked: its native binding loads
   * then, never for a command whose key comes from MP_API_KEY or the credentials file.
   */
  keychain(): Promise<KeychainOpening> {
    this.#keychain ??= (this.options.keychain ?? openSystemKeychain)();
    return this.#keychain;
  }

  /** The key in effect for `baseUrl()` and where it came from; undefined when no store has one. */
  keyInEffect(): Promise<ResolvedApiKey | undefined> {
    this.#keyInfo ??= resolveApiKey(this.options.env, this.baseUrl(), () => this.keychain()).then((found) => {
      this.#keyResolved = found;
      if (found !== undefined) this.#secrets.push(found.key);
      return found;
    });
    return this.#keyInfo;
  }

  /** Which key was in effect and where it came from, once it was read (never the key itself). */
  keySource(): { source: ResolvedApiKey["source"] | "none"; baseUrl?: string | undefined; store?: string | undefined } {
    const found = this.#keyResolved;
    if (found === undefined) return { source: "none" };
    return { source: found.source, baseUrl: found.baseUrl, store: found.store };
  }

  /** The API key; NO_API_KEY names the addresses that do have one when this one has none. */
  async apiKey(): Promise<string> {
    const found = await this.keyInEffect();
    if (found !== undefined) return found.key;
    throw noApiKeyError(this.baseUrl(), await storedAddresses(this.options.env, () => this.keychain()));
  }

  /** Service address: .syncrc (with MPSYNC_BASE_URL applied), else the env, else the default. */
  baseUrl(): string {
    return this.#config?.config.baseUrl ?? this.options.env.MPSYNC_BASE_URL ?? DEFAULT_BASE_URL;
  }

  /** Root logger (stderr), with the key scrubbed from every record. */
  logger(): Logger {
    this.#logger ??= createLogger({
      level: this.options.logLevel ?? this.#config?.config.logLevel ?? "info",
      destination: this.options.logDestination,
      file: this.options.logFile,
      secrets: this.#secrets,
    });
    return this.#logger;
  }

  /** The request queue of the key (`concurrency` in flight; a 429 pauses it). */
  async requestQueue(): Promise<RequestQueue> {
    const config = await this.configIfAny();
    return this.queues.forKey(await this.apiKey(), config?.config.concurrency ?? 4);
  }

  /**
   * From now on (before the first request), the client tries each request once with a short
   * connect: a command that must answer at once (`status`) says "could not be reached" instead
   * of backing off for seconds.
   */
  failFast(): void {
    this.#failFast = true;
  }

  /** The v3 client for the key, on that key's request queue. */
  async client(): Promise<V3Client> {
    if (this.#client === undefined) {
      const queue = await this.requestQueue();
      const apiKey = await this.apiKey();
      this.#client = createClient({
        baseUrl: this.baseUrl(),
        apiKey,
        queue,
        logger: this.logger().child({ component: "api" }),
        clock: this.clock,
        // The one generation budget: the client checks it before, and records, each call that starts one.
        budget: new GenerationBudget({
          apiKey,
          ledger: createFileGenerationLedger(join(stateHome(this.options.env), "generations.json")),
          clock: this.clock,
        }),
        retry: this.options.retry,
        ...(this.#failFast
          ? { retry: { ...this.options.retry, maxAttempts: 1 }, timeouts: { connectMs: FAIL_FAST_CONNECT_MS, headersMs: FAIL_FAST_HEADERS_MS } }
          : {}),
      });
    }
    return this.#client;
  }

  /**
   * Status polls: one per pollIntervalSec per design, across processes (ledger file). With no
   * .syncrc yet (`create --wait`), 60 s against the service and 1 s against a loopback address
   * (the emulator's demo generations take seconds).
   */
  async pollScheduler(): Promise<PollScheduler> {
    if (this.#poller === undefined) {
      const config = await this.configIfAny();
      const fallbackSec = isLoopbackUrl(this.baseUrl()) ? LOOPBACK_DEFAULT_POLL_SEC : MIN_POLL_INTERVAL_SEC;
      const intervalMs = (config?.config.pollIntervalSec ?? fallbackSec) * 1000;
      const ledger = createFilePollLedger(join(stateHome(this.options.env), "polls.json"));
      this.#poller = new PollScheduler({ intervalMs, clock: this.clock, ledger });
    }
    return this.#poller;
  }

  /**
   * The mappings named by `dirs` (folder paths, relative to cwd). None named: the mapped folder
   * the working directory is in, else all of them (config/mappings.ts, the folder rule).
   */
  async mappings(dirs: readonly string[] = []): Promise<Mapping[]> {
    const loaded = await this.config();
    const all = mappingsOf(loaded, this.options.cwd);
    this.options.onMappings?.(all);
    return selectMappings(all, dirs, this.options.cwd, loaded.path);
  }

  /** Every mapping of .syncrc, wherever the command runs (a path may name a file of any of them). */
  async allMappings(): Promise<Mapping[]> {
    const all = mappingsOf(await this.config(), this.options.cwd);
    this.options.onMappings?.(all);
    return all;
  }

  /** The mapped folder the working directory is in (the deepest, when folders nest). */
  mappingHere(all: readonly Mapping[]): Mapping | undefined {
    return mappingAt(all, this.options.cwd);
  }

  /** The single mapping a single-design command acts on (--dir, the folder you are in, or the only one). */
  async singleMapping(dir: string | undefined): Promise<Mapping> {
    const all = await this.mappings(dir === undefined ? [] : [dir]);
    if (all.length !== 1 || all[0] === undefined) {
      throw new MpsyncError("USAGE", "several folders are mapped: choose one with --dir", {
        hint: all.map((m) => m.dir).join(", "),
      });
    }
    return all[0];
  }

  /** A DesignSync of one mapping on the real file system, not yet opened. */
  async createDesignSync(
    mapping: Mapping,
    emit: EventSink,
    options: { holdPushes?: () => boolean; onLocalWrite?: () => void; sayDeletions?: boolean } = {},
  ): Promise<DesignSync> {
    const { config } = await this.config();
    // A slow writer's save that landed on a file a conflict's write replaced: recovered, and said.
    const onLateWrite = (w: LateWrite): void => emit({ event: "notice", dir: mapping.dir, code: "LATE_WRITE", files: [w.rel], message: lateWriteLine(w) });
    const folder = await openFsFolder(mapping.root, config.ignore, this.clock, { onLateWrite });
    this.#folders.add(folder);
    const { onLocalWrite, ...rest } = options;
    return new DesignSync({
      dir: mapping.dir,
      design: mapping.design,
      client: await this.client(),
      local: onLocalWrite === undefined ? folder.local : observeLocalWrites(folder.local, onLocalWrite),
      matcher: folder.matcher,
      store: folder.store,
      policy: config.onConflict,
      logger: this.logger().child({ dir: mapping.dir }),
      emit,
      clock: this.clock,
      ...rest,
    });
  }

  /** A DesignSync of one mapping, opened (state loaded, design resolved; see DesignSync.open). */
  async openDesign(mapping: Mapping, emit: EventSink, options: { holdsLock?: boolean } = {}): Promise<DesignSync> {
    const sync = await this.createDesignSync(mapping, emit);
    await sync.open(options);
    return sync;
  }

  /** The process's one heap settler (core/heap.ts): a collection is process-wide, however many designs ask. */
  heapSettler(): () => void {
    return (this.#settleHeap ??= createHeapSettler());
  }

  /**
   * Re-reads .syncrc (a reload): on success it replaces the config every later call sees, and
   * the settings a running process can change in place (poll interval, concurrency) follow;
   * on failure (CONFIG_INVALID) the config in use stays.
   */
  async reloadConfig(): Promise<LoadedConfig> {
    const loaded = await loadConfig({ cwd: this.options.cwd, configPath: this.options.configPath, env: this.options.env });
    this.#config = loaded;
    if (this.#poller !== undefined) this.#poller.intervalMs = loaded.config.pollIntervalSec * 1000;
    if (this.#keyResolved !== undefined) this.queues.forKey(this.#keyResolved.key, loaded.config.concurrency);
    return loaded;
  }

  /**
   * Ctrl-C during a command that writes (pull, init): stops every opened folder's writes
   * (sync/opened-folders.ts). Resolves how many temp files were removed.
   */
  interrupt(maxWaitMs = INTERRUPT_WAIT_MS): Promise<number> {
    return this.#folders.interrupt(maxWaitMs);
  }

  /** Releases sockets (keep-alive) so the process can exit. */
  async close(): Promise<void> {
    await this.#client?.close();
    this.#logger?.flush();
  }
}

/** Connect timeout of a failFast client (status): a service that does not answer is said at once. */
export const FAIL_FAST_CONNECT_MS = 3000;
/** Time to a response's headers for a failFast client: a service that accepts but never answers. */
export const FAIL_FAST_HEADERS_MS = 10_000;
