/** Defaults and checks of EmulatorOptions. */
import { checkCompressMode } from "./compression.js";
import type { EmulatorOptions, ResolvedOptions } from "./types.js";

/** @default 3000 */
export const DEFAULT_GENERATION_MS = 3000;
/** @default 60000 (docs/service-facts.md#limits) */
export const DEFAULT_MIN_POLL_INTERVAL_MS = 60_000;
/** @default 1000 */
export const DEFAULT_CREDITS = 1000;
/** @default 64 MiB: above the 16 MB the service was seen to accept. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The real web editor. */
export const DEFAULT_APP_URL = "https://www.magicpatterns.com";
/** The real published-preview host. */
export const DEFAULT_PUBLISHED_HOST = "magicpatterns.app";

/** Applies defaults; throws a RangeError naming the option when a value is unusable. */
export function resolveOptions(options: EmulatorOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    port: options.port ?? 0,
    host: options.host ?? "127.0.0.1",
    keys: (options.keys ?? []).filter((k) => k.length > 0),
    generationMs: options.generationMs ?? DEFAULT_GENERATION_MS,
    dataFile: options.dataFile,
    strictPoll: options.strictPoll ?? false,
    minPollIntervalMs: options.minPollIntervalMs ?? DEFAULT_MIN_POLL_INTERVAL_MS,
    credits: options.credits ?? DEFAULT_CREDITS,
    faults: { ...options.faults },
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    appUrl: (options.appUrl ?? DEFAULT_APP_URL).replace(/\/+$/, ""),
    publishedHost: (options.publishedHost ?? DEFAULT_PUBLISHED_HOST).toLowerCase(),
    logger: options.logger,
    compileCheck: options.compileCheck ?? true,
    esbuildDir: options.esbuildDir,
    compress: options.compress ?? "auto",
  };
  checkNonNegative("port", resolved.port);
  checkNonNegative("generationMs", resolved.generationMs);
  checkNonNegative("minPollIntervalMs", resolved.minPollIntervalMs);
  checkNonNegative("credits", resolved.credits);
  checkNonNegative("maxBodyBytes", resolved.maxBodyBytes);
  checkCompressMode(resolved.compress);
  if (!URL.canParse(resolved.appUrl)) throw new RangeError(`appUrl is not a URL: ${resolved.appUrl}`);
  if (!/^[a-z0-9.-]+$/.test(resolved.publishedHost)) {
    throw new RangeError(`publishedHost must be a host name: ${resolved.publishedHost}`);
  }
  return resolved;
}

function checkNonNegative(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number >= 0, got ${value}`);
}
