import { describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { call, createBlank, json, KEY_A, useEmulators } from "./helpers.js";

const start = useEmulators();

async function outcomes(emu: RunningEmulator, n: number): Promise<string[]> {
  const results: string[] = [];
  for (let i = 0; i < n; i += 1) {
    try {
      results.push(String((await call(emu, "GET", "/v3/health")).status));
    } catch {
      results.push("dropped");
    }
  }
  return results;
}

describe("emulator: strict polling", () => {
  it("answers 429 with Retry-After (whole seconds) to a poll sooner than the interval", async () => {
    const emu = await start({ strictPoll: true });
    const one = await createBlank(emu);
    const two = await createBlank(emu);
    expect((await call(emu, "GET", `/v3/designs/${one.editorId}/status`)).status).toBe(200);
    const early = await call(emu, "GET", `/v3/designs/${one.editorId}/status`);
    expect(early.status).toBe(429);
    expect(json(early)["error"]).toMatch(/polled too often/);
    const retryAfter = Number(early.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The limit is per design: another design polls freely.
    expect((await call(emu, "GET", `/v3/designs/${two.editorId}/status`)).status).toBe(200);
  });

  it("lets a poll through once the interval has passed", async () => {
    const emu = await start({ strictPoll: true, minPollIntervalMs: 400 });
    const { editorId } = await createBlank(emu);
    expect((await call(emu, "GET", `/v3/designs/${editorId}/status`)).status).toBe(200);
    const early = await call(emu, "GET", `/v3/designs/${editorId}/status`);
    expect(early.status).toBe(429);
    expect(early.headers.get("retry-after")).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 420)); // the interval itself is what is tested
    expect((await call(emu, "GET", `/v3/designs/${editorId}/status`)).status).toBe(200);
  });
});

describe("emulator: fault injection", () => {
  it("failNext answers a status with Retry-After, then only for the matching requests", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    emu.control.failNext({ method: "GET", path: /\/status$/ }, { status: 503, retryAfter: "0.05" }, 2);
    const first = await call(emu, "GET", `/v3/designs/${editorId}/status`);
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("0.05");
    expect(json(first)["error"]).toMatch(/Injected/);
    expect((await call(emu, "GET", `/v3/designs/${editorId}/active-artifact`)).status).toBe(200);
    expect((await call(emu, "GET", `/v3/designs/${editorId}/status`)).status).toBe(503);
    expect((await call(emu, "GET", `/v3/designs/${editorId}/status`)).status).toBe(200);
    expect(emu.control.countRequests((e) => e.fault === "status")).toBe(2);
  });

  it("failNext with a string path matches that exact path only, and may set a raw body", async () => {
    const emu = await start();
    emu.control.failNext({ path: "/v3/health" }, { status: 502, body: "<html>bad gateway</html>" });
    const answer = await call(emu, "GET", "/v3/health");
    expect(answer.status).toBe(502);
    expect(answer.text).toBe("<html>bad gateway</html>");
    expect(answer.headers.get("content-type")).toMatch(/text\/plain/);
  });

  it("drops the connection, before or after handling", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    emu.control.failNext({ path: "/v3/health" }, { drop: true });
    await expect(call(emu, "GET", "/v3/health")).rejects.toThrow();
    emu.control.failNext({ method: "PATCH" }, { drop: true, after: true });
    await expect(
      call(emu, "PATCH", `/v3/designs/${editorId}/artifacts/${artifactId}/files`, { body: { files: [{ fileName: "a.ts", code: "1" }] } }),
    ).rejects.toThrow();
    // The write happened even though its answer was lost.
    expect(emu.control.getFiles(editorId)["a.ts"]).toBe("1");
    expect(
      emu.control
        .requests()
        .filter((e) => e.status === 0)
        .map((e) => e.fault),
    ).toEqual(["drop", "drop"]);
  });

  it("sends malformed answers: html, truncated, wrong shape, invalid JSON", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    const path = `/v3/designs/${editorId}/active-artifact`;
    emu.control.failNext({ path }, { malformed: "html" });
    const html = await call(emu, "GET", path);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toMatch(/text\/html/);
    expect(html.text).toMatch(/^<!DOCTYPE html>/);
    emu.control.failNext({ path }, { malformed: "truncated" });
    const truncated = await call(emu, "GET", path);
    expect(truncated.body).toBeUndefined();
    expect(truncated.text.startsWith('{"artifactId":')).toBe(true);
    emu.control.failNext({ path }, { malformed: "wrong-shape" });
    expect((await call(emu, "GET", path)).body).toEqual({ unexpected: true, data: [] });
    emu.control.failNext({ path }, { malformed: "invalid-json" });
    const invalid = await call(emu, "GET", path);
    expect(invalid.body).toBeUndefined();
    expect(invalid.headers.get("content-type")).toMatch(/application\/json/);
  });

  it("hangs a request until the client gives up", async () => {
    const emu = await start();
    emu.control.failNext({ path: "/v3/health" }, { hang: true });
    const aborter = new AbortController();
    const pending = fetch(`${emu.baseUrl}/v3/health`, { headers: { "x-mp-api-key": KEY_A }, signal: aborter.signal });
    const entry = await emu.control.waitForRequest((e) => e.fault === "hang", { includePast: true });
    expect(entry).toMatchObject({ method: "GET", path: "/v3/health", status: 0 });
    aborter.abort();
    await expect(pending).rejects.toThrow();
  });

  // Order, not time (no timing assertions: these machines are shared and noisy): a delayed
  // request sent first is answered after an undelayed one sent second.
  it("delays a request: one sent later overtakes it", async () => {
    const emu = await start();
    emu.control.failNext({ path: "/v3/health" }, { delayMs: 1500 });
    const answered: string[] = [];
    const slow = call(emu, "GET", "/v3/health").then((a) => answered.push(`health ${a.status}`));
    const fast = call(emu, "GET", "/v3/design-systems").then((a) => answered.push(`design-systems ${a.status}`));
    await Promise.all([slow, fast]);
    expect(answered).toEqual(["design-systems 200", "health 200"]);
  });

  it("random errors and drops follow the seed", async () => {
    const seeded = { errorRate: 0.3, dropRate: 0.2, seed: 42 };
    const a = await start({ faults: seeded });
    const b = await start({ faults: seeded });
    const first = await outcomes(a, 30);
    expect(await outcomes(b, 30)).toEqual(first);
    expect(first).toContain("dropped");
    expect(first.some((o) => o === "500" || o === "503")).toBe(true);
    expect(first).toContain("200");
    a.control.clearFaults();
    expect(await outcomes(a, 5)).toEqual(["200", "200", "200", "200", "200"]);
    expect(() => a.control.setFaults({ errorRate: 2 })).toThrow(/errorRate/);
  });
});

describe("emulator: request log", () => {
  it("logs method, path with real ids, query and status, never the key", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    await call(emu, "GET", `/v3/designs/${editorId}/versions?skip=0`);
    await call(emu, "GET", "/v3/health", { key: null });
    const entries = emu.control.requests();
    expect(entries.map((e) => [e.method, e.path, e.search, e.status])).toEqual([
      ["POST", "/v3/designs", "", 200],
      ["GET", `/v3/designs/${editorId}/versions`, "?skip=0", 200],
      ["GET", "/v3/health", "", 401],
    ]);
    expect(JSON.stringify(entries)).not.toContain(KEY_A);
    expect(emu.control.countRequests((e) => e.status === 401)).toBe(1);
    emu.control.resetRequestLog();
    expect(emu.control.requests()).toEqual([]);
  });

  it("waitForRequest resolves on a future request and times out otherwise", async () => {
    const emu = await start();
    await call(emu, "GET", "/v3/health");
    const waiting = emu.control.waitForRequest((e) => e.path === "/v3/health");
    void call(emu, "GET", "/v3/health", { key: null });
    expect((await waiting).status).toBe(401);
    const past = await emu.control.waitForRequest((e) => e.status === 200, { includePast: true });
    expect(past.path).toBe("/v3/health");
    await expect(emu.control.waitForRequest((e) => e.path === "/never", { timeoutMs: 20 })).rejects.toThrow(/No matching request/);
  });
});
