/** A client wired for tests: tiny delays, a scaled clock, and a server of canned answers. */
import { createClient, type ClientOptions, type ClosableV3Client } from "../../src/api/client.js";
import { createScaledClock } from "./http-test-server.js";

export const API_KEY = "mp_test_key_7d1f0c9e4b2a";
export const EDITOR_ID = "abcdefghij0123456789xy";
export const ARTIFACT_ID = "3f0c1b8e-2a4d-4c6e-9f10-0123456789ab";

export const STATUS_BODY = { isGenerating: false, activeArtifactId: ARTIFACT_ID, availableFiles: ["App.tsx"] };

/** A client with retry delays of a few milliseconds. */
export function testClient(baseUrl: string, overrides: Partial<ClientOptions> = {}): ClosableV3Client {
  return createClient({
    baseUrl,
    apiKey: API_KEY,
    retry: { baseDelayMs: 2, maxDelayMs: 10, maxAttempts: 3, maxRetryAfterMs: 60_000 },
    clock: createScaledClock(100),
    timeouts: { connectMs: 1000, headersMs: 2000, bodyMs: 2000 },
    ...overrides,
  });
}
