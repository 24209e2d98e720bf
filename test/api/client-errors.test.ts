import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { sendJson, startTestServer, type TestServer } from "./http-test-server.js";
import { EDITOR_ID, STATUS_BODY, testClient } from "./client-fixtures.js";
import { createLogger } from "../../src/log/logger.js";
import { expireUndiciTimeouts } from "../support/undici-clock.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const STATUS_ENDPOINT = "GET /v3/designs/{editorId}/status";

async function statusError(handler: Parameters<typeof startTestServer>[0]): Promise<ApiError> {
  server = await startTestServer(handler);
  const client = testClient(server.baseUrl);
  try {
    const err = await client.getStatus(EDITOR_ID).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  } finally {
    await client.close();
  }
}

describe("error statuses", () => {
  it.each([
    [400, "BAD_REQUEST", "Invalid skip"],
    [401, "UNAUTHORIZED", "Invalid API key"],
    [402, "PAYMENT_REQUIRED", "Out of credits"],
    [403, "FORBIDDEN", "No access"],
    [404, "NOT_FOUND", "Design not found"],
    [422, "UNPROCESSABLE", "Compilation failed: App.tsx(3,1)"],
  ] as const)("%i -> %s, not retried", async (status, code, message) => {
    const err = await statusError((_req, res) => sendJson(res, status, { error: message }));
    expect(err).toMatchObject({
      code,
      status,
      serverMessage: message,
      endpoint: STATUS_ENDPOINT,
      retryable: false,
      request: { method: "GET", url: `${server?.baseUrl}/v3/designs/${EDITOR_ID}/status` },
    });
    expect(err.message).toBe(`could not read the design's status: ${status} ${message}`);
    expect(server?.requests).toHaveLength(1);
  });

  it("gives the login hint on 401", async () => {
    const err = await statusError((_req, res) => sendJson(res, 401, { error: "Unauthorized" }));
    expect(err.hint).toBe("API key missing or invalid: set MP_API_KEY or run mpsync login");
  });

  it("500 is retried, then reported as SERVER_ERROR with the status text when the body is not JSON", async () => {
    const err = await statusError((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><body>Bad gateway</body></html>");
    });
    expect(err).toMatchObject({ code: "SERVER_ERROR", status: 502, retryable: true, serverMessage: undefined });
    expect(err.message).toBe(`could not read the design's status: 502 Bad Gateway`);
    expect(server?.requests).toHaveLength(3);
  });

  it("keeps a multi-line server message on one line", async () => {
    const err = await statusError((_req, res) => sendJson(res, 404, { error: "Design\nnot   found" }));
    expect(err.message).toBe(`could not read the design's status: 404 Design not found`);
  });
});

describe("malformed responses", () => {
  it.each([
    ["an HTML page", "text/html; charset=utf-8", "<!doctype html><html></html>", "got an HTML page instead of JSON"],
    ["HTML without a content type", "application/octet-stream", "<!DOCTYPE html><p>hi", "got an HTML page instead of JSON"],
    ["truncated JSON", "application/json", '{"isGenerating": fal', "body is not valid JSON"],
    ["an empty body", "application/json", "", "empty body"],
    [
      "a wrong shape",
      "application/json",
      '{"isGenerating":false,"activeArtifactId":"a","availableFiles":"App.tsx"}',
      "availableFiles: expected array, received string",
    ],
    ["a missing field", "application/json", '{"isGenerating":false,"availableFiles":[]}', "activeArtifactId: expected string, received undefined"],
    ["null", "application/json", "null", "(body): expected object, received null"],
  ])("%s -> INVALID_RESPONSE naming the endpoint, not retried", async (_name, type, body, why) => {
    const err = await statusError((_req, res) => {
      res.writeHead(200, { "content-type": type });
      res.end(body);
    });
    expect(err.code).toBe("INVALID_RESPONSE");
    expect(err.message).toBe(`could not read the design's status: malformed response: ${why}`);
    expect(err.retryable).toBe(false);
    expect(server?.requests).toHaveLength(1);
  });

  it("refuses a body over the size cap (TOO_LARGE: a batched read asks again in halves)", async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"isGenerating":false,"activeArtifactId":"a","availableFiles":["');
      res.end(`${"x".repeat(4096)}"]}`);
    });
    const client = testClient(server.baseUrl, { maxResponseBytes: 1024 });
    await expect(client.getStatus(EDITOR_ID)).rejects.toMatchObject({
      code: "TOO_LARGE",
      message: `could not read the design's status: response body larger than the size cap`,
    });
    await client.close();
  });

  it("treats a redirect as malformed", async () => {
    const err = await statusError((_req, res) => {
      res.writeHead(302, { location: "/login" });
      res.end();
    });
    expect(err).toMatchObject({ code: "INVALID_RESPONSE", status: 302 });
  });
});

describe("network failures and timeouts", () => {
  it("a refused connection is NETWORK, retried on idempotent calls", async () => {
    server = await startTestServer(() => undefined);
    const { baseUrl } = server;
    await server.close();
    server = undefined;
    const client = testClient(baseUrl);
    const err = (await client.getStatus(EDITOR_ID).catch((e: unknown) => e)) as ApiError;
    await client.close();
    expect(err).toMatchObject({ code: "NETWORK", status: undefined, retryable: true });
    expect(err.message).toBe(`could not read the design's status: network error (ECONNREFUSED)`);
  });

  it("a server that never answers is TIMEOUT", async () => {
    server = await startTestServer(() => undefined);
    const client = testClient(server.baseUrl, { timeouts: { headersMs: 30 }, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const err = (await expireUndiciTimeouts(client.getStatus(EDITOR_ID)).catch((e: unknown) => e)) as ApiError;
    await client.close();
    expect(err).toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(err.message).toBe(`could not read the design's status: no response within 30 ms`);
    expect(server.requests).toHaveLength(2);
  });

  it("a body that stalls is TIMEOUT", async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"isGenerating":');
    });
    const client = testClient(server.baseUrl, { timeouts: { bodyMs: 30 }, retry: { maxAttempts: 1 } });
    await expect(expireUndiciTimeouts(client.getStatus(EDITOR_ID))).rejects.toMatchObject({ code: "TIMEOUT" });
    await client.close();
  });

  it("a dropped connection is NETWORK", async () => {
    const err = await statusError((_req, res) => res.socket?.destroy());
    expect(err.code).toBe("NETWORK");
    expect(server?.requests).toHaveLength(3);
  });

  it("an aborted call rejects with the signal's reason and is not retried", async () => {
    server = await startTestServer(() => undefined);
    const client = testClient(server.baseUrl);
    const controller = new AbortController();
    const call = client.getStatus(EDITOR_ID, { signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort(new Error("stop"));
    await expect(call).rejects.toThrow("stop");
    await client.close();
    expect(server.requests).toHaveLength(1);
  });
});

describe("the request log line (-v)", () => {
  it("gives each attempt's duration in whole milliseconds", async () => {
    server = await startTestServer((_req, res) => sendJson(res, 200, STATUS_BODY));
    const lines: string[] = [];
    const logger = createLogger({ level: "debug", destination: { write: (line: string) => void lines.push(line) } });
    const client = testClient(server.baseUrl, { logger });
    try {
      await client.getStatus(EDITOR_ID);
    } finally {
      await client.close();
    }
    const records = lines.map((l) => JSON.parse(l) as { msg: string; ms?: number }).filter((r) => r.msg === "api request");
    expect(records).toHaveLength(1);
    expect(Number.isInteger(records[0]?.ms)).toBe(true);
  });
});
