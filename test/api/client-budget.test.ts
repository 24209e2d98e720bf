import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGenerationLedger, GenerationBudget } from "../../src/scheduling/generation-budget.js";
import { createFakeClock, sendJson, startTestServer, type TestServer } from "./http-test-server.js";
import { API_KEY, EDITOR_ID, testClient } from "./client-fixtures.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a client with a generation budget", () => {
  it("records sent generation calls, skips 429s and non-generation calls, and refuses past the limit", async () => {
    server = await startTestServer((req, res, i) => {
      if (req.url.endsWith("/prompts") && i === 0) return sendJson(res, 429, { error: "slow" }, { "retry-after": "0" });
      if (req.url.endsWith("/prompts")) return sendJson(res, 200, { requestId: `r${i}` });
      if (req.url.endsWith("/designs")) return sendJson(res, 500, { error: "boom" });
      sendJson(res, 200, { status: "ok" });
    });
    const budget = new GenerationBudget({ apiKey: API_KEY, ledger: createMemoryGenerationLedger(), clock: createFakeClock(), limit: 2 });
    const client = testClient(server.baseUrl, { budget });
    await client.health();
    await client.createDesign({ name: "blank" }).catch(() => undefined);
    expect(await budget.remaining()).toBe(2);
    await client.sendPrompt(EDITOR_ID, { prompt: "one" }); // 429 then 200: counted once
    expect(await budget.remaining()).toBe(1);
    await expect(client.createDesign({ prompt: "two" })).rejects.toMatchObject({ code: "SERVER_ERROR" }); // reached the server
    expect(await budget.remaining()).toBe(0);
    const before = server.requests.length;
    await expect(client.sendPrompt(EDITOR_ID, { prompt: "three" })).rejects.toMatchObject({ code: "GENERATION_BUDGET" });
    expect(server.requests).toHaveLength(before);
    await client.close();
  });

  it("does not count a refused generation call (4xx: out of credits, bad request) nor one that never left", async () => {
    server = await startTestServer((req, res, i) => sendJson(res, i === 0 ? 402 : 400, { error: "refused" }));
    const budget = new GenerationBudget({ apiKey: API_KEY, ledger: createMemoryGenerationLedger(), clock: createFakeClock(), limit: 1 });
    const client = testClient(server.baseUrl, { budget });
    await expect(client.sendPrompt(EDITOR_ID, { prompt: "one" })).rejects.toMatchObject({ code: "PAYMENT_REQUIRED" });
    await expect(client.createDesign({ prompt: "two" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await budget.remaining()).toBe(1);
    await client.close();
    const closed = server.baseUrl;
    await server.close();
    server = undefined;
    const offline = testClient(closed, { budget, retry: { maxAttempts: 1 } });
    await expect(offline.sendPrompt(EDITOR_ID, { prompt: "three" })).rejects.toMatchObject({ code: "NETWORK" });
    expect(await budget.remaining()).toBe(1);
    await offline.close();
  });
});
