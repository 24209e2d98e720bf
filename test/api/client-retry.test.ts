import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { createRequestQueue, type RateLimitedEvent } from "../../src/scheduling/request-queue.js";
import { createScaledClock, sendJson, startTestServer, type TestServer } from "./http-test-server.js";
import { EDITOR_ID, STATUS_BODY, testClient } from "./client-fixtures.js";
import { expireUndiciTimeouts } from "../support/undici-clock.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const design = { editorId: EDITOR_ID, editorUrl: "u", previewUrl: null, activeArtifactId: null, availableFiles: [] };

describe("retries", () => {
  it("retries a 500 on an idempotent call with jittered backoff, then succeeds", async () => {
    server = await startTestServer((_req, res, i) => (i < 2 ? sendJson(res, 500, { error: "boom" }) : sendJson(res, 200, STATUS_BODY)));
    const clock = createScaledClock(1);
    const client = testClient(server.baseUrl, { clock, random: () => 0.5, retry: { baseDelayMs: 4, maxAttempts: 5 } });
    expect(await client.getStatus(EDITOR_ID)).toEqual(STATUS_BODY);
    await client.close();
    expect(server.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([2, 4]);
  });

  it("honours Retry-After in seconds on 503 and 429", async () => {
    server = await startTestServer((_req, res, i) => {
      if (i === 0) sendJson(res, 503, { error: "maintenance" }, { "retry-after": "2" });
      else if (i === 1) sendJson(res, 429, { error: "slow down" }, { "retry-after": "1" });
      else sendJson(res, 200, STATUS_BODY);
    });
    const clock = createScaledClock(200);
    const client = testClient(server.baseUrl, { clock });
    expect(await client.getStatus(EDITOR_ID)).toEqual(STATUS_BODY);
    await client.close();
    // The retry waits and the queue pause of the 429 (same length) both go through the clock.
    expect(clock.sleeps.filter((ms) => ms === 2000)).toHaveLength(1);
    expect(clock.sleeps.filter((ms) => ms === 1000).length).toBeGreaterThanOrEqual(1);
    expect(server.requests).toHaveLength(3);
  });

  it("honours Retry-After as an HTTP-date", async () => {
    server = await startTestServer((_req, res, i) =>
      i === 0 ? sendJson(res, 429, { error: "slow down" }, { "retry-after": new Date(Date.now() + 3000).toUTCString() }) : sendJson(res, 200, STATUS_BODY),
    );
    const clock = createScaledClock(300);
    const client = testClient(server.baseUrl, { clock });
    await client.getStatus(EDITOR_ID);
    await client.close();
    const wait = clock.sleeps[clock.sleeps.length - 1] ?? 0;
    expect(wait).toBeGreaterThan(1000);
    expect(wait).toBeLessThanOrEqual(3000);
  });

  it("caps Retry-After at maxRetryAfterMs", async () => {
    server = await startTestServer((_req, res, i) =>
      i === 0 ? sendJson(res, 429, { error: "later" }, { "retry-after": "86400" }) : sendJson(res, 200, STATUS_BODY),
    );
    const clock = createScaledClock(1);
    const client = testClient(server.baseUrl, { clock, retry: { maxRetryAfterMs: 5 } });
    await client.getStatus(EDITOR_ID);
    await client.close();
    expect(clock.sleeps).toContain(5);
    expect(clock.sleeps.every((ms) => ms <= 5)).toBe(true);
  });

  it("gives up after maxAttempts with the last error", async () => {
    server = await startTestServer((_req, res) => sendJson(res, 500, { error: "down" }));
    const client = testClient(server.baseUrl, { retry: { maxAttempts: 4, baseDelayMs: 1 } });
    await expect(client.getStatus(EDITOR_ID)).rejects.toMatchObject({ code: "SERVER_ERROR", status: 500 });
    await client.close();
    expect(server.requests).toHaveLength(4);
  });

  it("retries publish (idempotent)", async () => {
    server = await startTestServer((_req, res, i) => {
      if (i % 2 === 0) return sendJson(res, 500, { error: "flaky" });
      sendJson(res, 200, { compiledFiles: ["a.ts"] });
    });
    const client = testClient(server.baseUrl);
    expect((await client.publish(EDITOR_ID, "a")).compiledFiles).toEqual(["a.ts"]);
    await client.close();
    expect(server.requests).toHaveLength(2);
  });

  it("never re-sends a PATCH that reached the server: a 503 or a lost answer is the sync cycle's to retry", async () => {
    server = await startTestServer((_req, res) => sendJson(res, 503, { error: "busy" }));
    const client = testClient(server.baseUrl, { retry: { baseDelayMs: 1 } });
    await expect(client.writeFiles(EDITOR_ID, "a", [{ fileName: "a.ts", code: "x" }])).rejects.toMatchObject({ code: "SERVER_ERROR", retryable: false });
    await client.close();
    expect(server.requests).toHaveLength(1);
  });
});

describe("calls that start a generation or create something", () => {
  const calls = {
    "createDesign with a prompt": (c: ReturnType<typeof testClient>) => c.createDesign({ prompt: "a todo app" }),
    "createDesign without a prompt": (c: ReturnType<typeof testClient>) => c.createDesign({ name: "blank" }),
    sendPrompt: (c: ReturnType<typeof testClient>) => c.sendPrompt(EDITOR_ID, { prompt: "make it blue" }),
    createArtifact: (c: ReturnType<typeof testClient>) => c.createArtifact(EDITOR_ID, { sourceArtifactId: "a", name: "v" }),
  };

  it.each(Object.entries(calls))("%s: a 500 is not retried", async (_name, call) => {
    server = await startTestServer((_req, res) => sendJson(res, 500, { error: "boom" }));
    const client = testClient(server.baseUrl);
    await expect(call(client)).rejects.toMatchObject({ code: "SERVER_ERROR", retryable: false });
    await client.close();
    expect(server.requests).toHaveLength(1);
  });

  it.each(Object.entries(calls))("%s: a dropped connection is not retried", async (_name, call) => {
    server = await startTestServer((_req, res) => res.socket?.destroy());
    const client = testClient(server.baseUrl);
    await expect(call(client)).rejects.toMatchObject({ code: "NETWORK", retryable: false });
    await client.close();
    expect(server.requests).toHaveLength(1);
  });

  it.each(Object.entries(calls))("%s: a timeout is not retried", async (_name, call) => {
    server = await startTestServer(() => undefined);
    const client = testClient(server.baseUrl, { timeouts: { headersMs: 20 } });
    await expect(expireUndiciTimeouts<unknown>(call(client))).rejects.toMatchObject({ code: "TIMEOUT", retryable: false });
    await client.close();
    expect(server.requests).toHaveLength(1);
  });

  it("a 429 is retried even for a prompt: the server refused it outright", async () => {
    server = await startTestServer((_req, res, i) => (i === 0 ? sendJson(res, 429, { error: "slow" }, { "retry-after": "0.01" }) : sendJson(res, 200, design)));
    const client = testClient(server.baseUrl);
    expect(await client.createDesign({ prompt: "a todo app" })).toEqual(design);
    await client.close();
    expect(server.requests).toHaveLength(2);
  });

  it("a refused connection (never sent) is retried even for a prompt", async () => {
    server = await startTestServer(() => undefined);
    const { baseUrl } = server;
    await server.close();
    server = undefined;
    const clock = createScaledClock(1);
    const client = testClient(baseUrl, { clock });
    const err = (await client.sendPrompt(EDITOR_ID, { prompt: "x" }).catch((e: unknown) => e)) as ApiError;
    await client.close();
    expect(err).toMatchObject({ code: "NETWORK", retryable: true });
    // maxAttempts 3: two backoff waits in between.
    expect(clock.sleeps).toHaveLength(2);
  });
});

describe("a 429 pauses the key's whole queue", () => {
  it("a second concurrent call waits until the Retry-After has passed", async () => {
    let first = true;
    const pausedWhenHealthArrived: boolean[] = [];
    server = await startTestServer((req, res) => {
      if (req.url.endsWith("/status") && first) {
        first = false;
        return sendJson(res, 429, { error: "slow down" }, { "retry-after": "0.2" });
      }
      if (req.url.endsWith("/health")) pausedWhenHealthArrived.push(queue.isPaused);
      sendJson(res, 200, req.url.endsWith("/health") ? { status: "ok" } : STATUS_BODY);
    });
    const queue = createRequestQueue({ concurrency: 2 });
    const events: RateLimitedEvent[] = [];
    const paused = new Promise<void>((resolve) =>
      queue.onRateLimited((e) => {
        events.push(e);
        resolve();
      }),
    );
    const client = testClient(server.baseUrl, { queue, clock: createScaledClock(1) });
    const limited = client.getStatus(EDITOR_ID);
    await paused;
    expect(queue.isPaused).toBe(true);
    expect(queue.pausedUntil).toBeGreaterThan(Date.now());
    const other = client.health();
    await expect(other).resolves.toEqual({ status: "ok" });
    await expect(limited).resolves.toEqual(STATUS_BODY);
    await client.close();
    expect(events).toHaveLength(1);
    expect(events[0]?.delayMs).toBe(200);
    // health was queued behind the pause: it reached the server only once the pause was over
    // (recorded by the server handler, not measured in wall-clock time).
    expect(pausedWhenHealthArrived).toEqual([false]);
    expect(queue.isPaused).toBe(false);
  });
});

describe("warm (a save in its debounce opens the connection)", () => {
  it("with a caller's dispatcher (no pre-connect): one health check when idle, nothing right after a request", async () => {
    server = await startTestServer((_req, res) => sendJson(res, 200, { status: "ok" }));
    const dispatcher = new Agent();
    const client = testClient(server.baseUrl, { dispatcher });
    client.warm?.();
    await server.waitForRequests(1);
    expect(server.requests[0]?.url).toMatch(/\/v3\/health$/);
    await client.health();
    client.warm?.();
    await client.health();
    await client.close();
    await dispatcher.close();
    // The health sent by warm, then the two called: a warm right after a request sends nothing.
    expect(server.requests).toHaveLength(3);
  });
});
