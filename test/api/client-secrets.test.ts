import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.js";
import { sendJson, startTestServer, type TestServer } from "./http-test-server.js";
import { API_KEY, EDITOR_ID, testClient } from "./client-fixtures.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A pino destination that keeps every record in memory. */
function memoryDestination(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  return { stream, text: () => chunks.join("") };
}

function serialise(err: unknown): string {
  const e = err as Error & Record<string, unknown>;
  const cause = e.cause as (Error & Record<string, unknown>) | undefined;
  return [
    e.message,
    String(e.stack),
    JSON.stringify(e),
    JSON.stringify({ ...e, message: e.message, hint: e.hint }),
    cause === undefined ? "" : `${cause.message} ${String(cause.stack)} ${JSON.stringify(cause)}`,
  ].join("\n");
}

describe("the API key never leaks", () => {
  it("is absent from errors, their JSON and every log record, whatever the failure", async () => {
    server = await startTestServer((req, res, i) => {
      // A hostile or buggy server echoing the key back in its error message.
      const echoed = `bad key ${String(req.headers["x-mp-api-key"])}`;
      switch (i % 5) {
        case 0:
          return sendJson(res, 401, { error: echoed });
        case 1:
          return sendJson(res, 500, { error: echoed });
        case 2:
          return sendJson(res, 200, { nonsense: echoed });
        case 3:
          return res.socket?.destroy();
        default:
          return sendJson(res, 429, { error: echoed }, { "retry-after": "0" });
      }
    });
    const logs = memoryDestination();
    const logger = createLogger({ level: "trace", destination: logs.stream });
    const client = testClient(server.baseUrl, { logger, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const errors: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      await client.getStatus(EDITOR_ID).catch((e: unknown) => errors.push(e));
      await client.sendPrompt(EDITOR_ID, { prompt: "x" }).catch((e: unknown) => errors.push(e));
    }
    await client.close();
    expect(errors.length).toBeGreaterThanOrEqual(10);
    expect(server.requests.every((r) => r.headers["x-mp-api-key"] === API_KEY)).toBe(true);
    for (const err of errors) expect(serialise(err)).not.toContain(API_KEY);
    expect(logs.text().length).toBeGreaterThan(0);
    expect(logs.text()).not.toContain(API_KEY);
    expect(errors.map((e) => (e as Error).message).join("\n")).toContain("bad key [redacted]");
  });
});
