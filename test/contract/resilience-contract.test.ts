/** The real client against the real emulator's faults: retries, Retry-After, the 429 pause, strict polling. */
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type ClientOptions, type ClosableV3Client } from "../../src/api/client.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { createSystemClock } from "../../src/core/clock.js";
import { createMemoryPollLedger, PollScheduler } from "../../src/scheduling/poll-scheduler.js";
import { createRequestQueue, type RateLimitedEvent } from "../../src/scheduling/request-queue.js";
import { createScaledClock } from "../api/http-test-server.js";
import { expireUndiciTimeouts } from "../support/undici-clock.js";

const KEY = "mp_resilience_key_1";

let emulator: RunningEmulator | undefined;
let client: ClosableV3Client | undefined;
afterEach(async () => {
  await client?.close();
  await emulator?.close();
  client = undefined;
  emulator = undefined;
});

async function setUp(
  emulatorOptions: Parameters<typeof startEmulator>[0] = {},
  clientOptions: Partial<ClientOptions> = {},
): Promise<{ emulator: RunningEmulator; client: ClosableV3Client; editorId: string; artifactId: string }> {
  emulator = await startEmulator({ port: 0, keys: [KEY], generationMs: 20, ...emulatorOptions });
  client = createClient({
    baseUrl: emulator.baseUrl,
    apiKey: KEY,
    retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3 },
    ...clientOptions,
  });
  const ids = emulator.control.createDesign(KEY);
  return { emulator, client, ...ids };
}

describe("retries against the emulator", () => {
  it("retries 500s on reads until they succeed, and never re-sends a PATCH whose answer was lost", async () => {
    const t = await setUp();
    const statusPath = `/v3/designs/${t.editorId}/status`;
    const filesPath = `/v3/designs/${t.editorId}/artifacts/${t.artifactId}/files`;
    t.emulator.control.failNext({ method: "GET", path: statusPath }, { status: 500 }, 2);
    t.emulator.control.failNext({ method: "PATCH", path: filesPath }, { drop: true, after: true }, 1);
    expect((await t.client.getStatus(t.editorId)).isGenerating).toBe(false);
    await expect(t.client.writeFiles(t.editorId, t.artifactId, [{ fileName: "a.ts", code: "1" }])).rejects.toMatchObject({ code: "NETWORK" });
    expect(t.emulator.control.countRequests((r) => r.path === statusPath)).toBe(3);
    expect(t.emulator.control.countRequests((r) => r.path === filesPath)).toBe(1);
  });

  it("honours Retry-After (seconds) from a 503", async () => {
    const clock = createScaledClock(200);
    const t = await setUp({}, { clock });
    t.emulator.control.failNext({ path: "/v3/health" }, { status: 503, retryAfter: "2" });
    expect(await t.client.health()).toEqual({ status: "ok" });
    expect(clock.sleeps).toContain(2000);
  });

  it("honours Retry-After (HTTP-date) from a 429", async () => {
    const clock = createScaledClock(500);
    const t = await setUp({}, { clock });
    const at = new Date(Date.now() + 4000).toUTCString();
    t.emulator.control.failNext({ path: "/v3/health" }, { status: 429, retryAfter: at });
    expect(await t.client.health()).toEqual({ status: "ok" });
    const waited = Math.max(...clock.sleeps);
    expect(waited).toBeGreaterThan(2000);
    expect(waited).toBeLessThanOrEqual(4000);
  });

  it("never repeats a prompt that may have reached the service", async () => {
    const t = await setUp();
    const path = `/v3/designs/${t.editorId}/prompts`;
    t.emulator.control.failNext({ path }, { drop: true, after: true });
    await expect(t.client.sendPrompt(t.editorId, { prompt: "make it blue" })).rejects.toMatchObject({ code: "NETWORK", retryable: false });
    t.emulator.control.failNext({ path: "/v3/designs" }, { status: 500 });
    await expect(t.client.createDesign({ prompt: "a todo app" })).rejects.toMatchObject({ code: "SERVER_ERROR" });
    expect(t.emulator.control.countRequests((r) => r.path === path)).toBe(1);
    expect(t.emulator.control.countRequests((r) => r.method === "POST" && r.path === "/v3/designs")).toBe(1);
  });

  it("a malformed answer is INVALID_RESPONSE naming the endpoint, not retried", async () => {
    const t = await setUp();
    for (const malformed of ["html", "truncated", "wrong-shape", "invalid-json"] as const) {
      t.emulator.control.failNext({ path: `/v3/designs/${t.editorId}/active-artifact` }, { malformed });
      const err = await t.client.getActiveArtifact(t.editorId).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "INVALID_RESPONSE" });
      expect((err as Error).message).toMatch(/^could not read the active version: malformed response: /);
    }
    expect(t.emulator.control.countRequests((r) => r.path.endsWith("/active-artifact"))).toBe(4);
  });

  it("a hanging service is a TIMEOUT", async () => {
    const t = await setUp({}, { timeouts: { headersMs: 20 }, retry: { maxAttempts: 1 } });
    t.emulator.control.failNext({ path: "/v3/health" }, { hang: true });
    await expect(expireUndiciTimeouts(t.client.health())).rejects.toMatchObject({ code: "TIMEOUT" });
  });
});

describe("a 429 pauses the key's queue", () => {
  it("a concurrent call is held until the Retry-After has passed", async () => {
    const queue = createRequestQueue({ concurrency: 4 });
    const t = await setUp({}, { queue });
    const paused = new Promise<RateLimitedEvent>((resolve) => queue.onRateLimited(resolve));
    t.emulator.control.failNext({ path: `/v3/designs/${t.editorId}/status` }, { status: 429, retryAfter: "0.3" });
    const limited = t.client.getStatus(t.editorId);
    const event = await paused;
    expect(event.delayMs).toBe(300);
    // Whether the queue was still paused when the other request reached the service: an
    // event-based check, not a wall-clock gap.
    const pausedOnArrival = t.emulator.control.waitForRequest((e) => e.path.endsWith("/active-artifact")).then(() => queue.isPaused);
    const other = t.client.getActiveArtifact(t.editorId);
    await Promise.all([limited, other]);
    expect(await pausedOnArrival).toBe(false);
    expect(queue.isPaused).toBe(false);
  });
});

describe("strict polling", () => {
  it("a PollScheduler at the service's interval never gets a 429", async () => {
    const t = await setUp({ strictPoll: true, minPollIntervalMs: 100 });
    const scheduler = new PollScheduler({ intervalMs: 100, clock: createSystemClock(), ledger: createMemoryPollLedger() });
    const polls = Array.from({ length: 5 }, () => scheduler.poll(t.editorId, () => t.client!.getStatus(t.editorId)));
    await Promise.all(polls);
    expect(t.emulator.control.countRequests((r) => r.path.endsWith("/status"))).toBe(5);
    expect(t.emulator.control.countRequests((r) => r.status === 429)).toBe(0);
  });

  it("without the scheduler, a second quick poll gets the 429 and its Retry-After", async () => {
    const t = await setUp({ strictPoll: true, minPollIntervalMs: 60_000 }, { retry: { maxAttempts: 1 } });
    await t.client.getStatus(t.editorId);
    await expect(t.client.getStatus(t.editorId)).rejects.toMatchObject({ code: "RATE_LIMITED", status: 429, retryAfterMs: 60_000 });
  });
});
