/** The local v3 service (`mpsync emulator`, the backbone of the test suite). */
export { startEmulator, type RunningEmulator } from "./server.js";
export { COMPRESS_MIN_BYTES } from "./compression.js";
export type { CreatedDesign, DesignSnapshot, EmulatorControl } from "./control.js";
export type { GenerationOutcome } from "./generation.js";
export { ALREADY_GENERATING, FAIL_MARKER } from "./generation.js";
export type { RequestPredicate } from "./request-log.js";
export type { CompressMode, EmulatorOptions, FaultMatch, FaultOptions, InjectedFault, MalformedKind, RequestLogEntry, WaitForRequestOptions } from "./types.js";
export { DEFAULT_APP_URL, DEFAULT_CREDITS, DEFAULT_GENERATION_MS, DEFAULT_MIN_POLL_INTERVAL_MS, DEFAULT_PUBLISHED_HOST } from "./options.js";
