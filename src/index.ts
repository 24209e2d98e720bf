/** The library entry (`import { createClient } from "mpsync"`): the typed v3 client for scripts. */
export { createClient, READ_FILES_BATCH_SIZE, MAX_LISTED_VERSIONS } from "./api/client.js";
export type { ClientOptions, ClosableV3Client } from "./api/client.js";
export type { CallOptions, V3Client } from "./api/client-types.js";
export { ApiError, MpsyncError, errorCodeForStatus, hasCode } from "./api/errors.js";
export type { ErrorCode, RedactedRequest } from "./api/errors.js";
export { DEFAULT_RETRY_OPTIONS, decideRetry, parseRetryAfter } from "./api/retry-policy.js";
export type { RetryDecision, RetryInput, RetryOptions } from "./api/retry-policy.js";
export type { Timeouts } from "./api/http-transport.js";
export { RequestQueueRegistry, createRequestQueue } from "./scheduling/request-queue.js";
export type { RateLimitedEvent, RequestQueue, RequestQueueOptions } from "./scheduling/request-queue.js";
export { PollScheduler, createFilePollLedger, createMemoryPollLedger } from "./scheduling/poll-scheduler.js";
export type { PollLedger, PollSchedulerOptions } from "./scheduling/poll-scheduler.js";
export { GenerationBudget, createFileGenerationLedger, createMemoryGenerationLedger } from "./scheduling/generation-budget.js";
export type { GenerationLedger, GenerationBudgetOptions } from "./scheduling/generation-budget.js";
export type { Clock } from "./core/clock.js";
export { createSystemClock } from "./core/clock.js";
export type {
  Artifact,
  CreateArtifactRequest,
  CreateDesignRequest,
  Design,
  DesignStatus,
  DesignSystem,
  FileContent,
  FileWrite,
  Message,
  MessagesPage,
  PromptRequest,
  PublishResult,
  Version,
  VersionsPage,
} from "./api/schemas.js";
