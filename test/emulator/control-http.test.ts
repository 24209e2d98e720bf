import { Agent, get as httpGet } from "node:http";
import { describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { call, json, KEY_A, KEY_B, useEmulators } from "./helpers.js";

const start = useEmulators();

async function control(emu: RunningEmulator, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const root = emu.baseUrl.replace(/\/api$/, "");
  const res = await fetch(`${root}/__control${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("emulator: /__control over HTTP", () => {
  it("creates designs, edits files in place (any name), reads them back", async () => {
    const emu = await start();
    const created = await control(emu, "POST", "/designs", { key: KEY_A, name: "Ctl", files: { "App.tsx": "a" } });
    expect(created.status).toBe(200);
    const editorId = String(created.body["editorId"]);
    expect(created.body["canvasId"]).toMatch(/^[a-z0-9]{22}$/);
    expect((await control(emu, "POST", `/designs/${editorId}/edit-file`, { name: "../escape.txt", content: "x" })).status).toBe(200);
    expect((await control(emu, "POST", `/designs/${editorId}/edit-file`, { name: ".git/hooks/pre-commit", content: "y" })).status).toBe(200);
    const files = await control(emu, "GET", `/designs/${editorId}/files`);
    expect(files.body["files"]).toEqual({ "App.tsx": "a", "../escape.txt": "x", ".git/hooks/pre-commit": "y" });
    await control(emu, "POST", `/designs/${editorId}/remove-file`, { name: "../escape.txt" });
    // The API sees exactly what the control planted.
    const active = json(await call(emu, "GET", `/v3/designs/${editorId}/active-artifact`));
    expect(active["files"]).toEqual(["App.tsx", ".git/hooks/pre-commit"]);
    expect((await call(emu, "GET", `/v3/designs/${editorId}/active-artifact`, { key: KEY_B })).status).toBe(403);
  });

  it("sets files as a new artifact, switches the active artifact, drives generation", async () => {
    const emu = await start();
    const { editorId, artifactId } = emu.control.createDesign(KEY_A);
    const set = await control(emu, "POST", `/designs/${editorId}/set-files`, { files: {}, newArtifact: true, title: "Emptied" });
    const emptyId = String(set.body["artifactId"]);
    expect(json(await call(emu, "GET", `/v3/designs/${editorId}/active-artifact`))).toEqual({ artifactId: emptyId, files: [] });
    expect((await control(emu, "POST", `/designs/${editorId}/active-artifact`, { artifactId })).status).toBe(200);
    expect(emu.control.activeArtifactId(editorId)).toBe(artifactId);
    expect((await control(emu, "POST", `/designs/${editorId}/active-artifact`, { artifactId: "nope" })).status).toBe(404);
    const started = await control(emu, "POST", `/designs/${editorId}/start-generation`, { prompt: "Add cards" });
    expect(started.body["requestId"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(json(await call(emu, "GET", `/v3/designs/${editorId}/status`))["isGenerating"]).toBe(true);
    const finished = await control(emu, "POST", `/designs/${editorId}/finish-generation`);
    expect(finished.body["artifactId"]).toBe(emu.control.activeArtifactId(editorId));
    expect((await control(emu, "POST", `/designs/${editorId}/finish-generation`)).status).toBe(409);
    const snapshot = await control(emu, "GET", `/designs/${editorId}`);
    expect((snapshot.body["versions"] as unknown[]).length).toBe(3);
  });

  it("sets credits, faults, fail-next with a regex, and reads the request log", async () => {
    const emu = await start();
    const { editorId } = emu.control.createDesign(KEY_A);
    expect((await control(emu, "POST", "/credits", { key: KEY_A, credits: 0 })).status).toBe(200);
    expect((await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "x" } })).status).toBe(402);
    const failNext = await control(emu, "POST", "/fail-next", { match: { pathRegex: "/status$" }, fault: { status: 429, retryAfter: "1" } });
    expect(failNext.status).toBe(200);
    const limited = await call(emu, "GET", `/v3/designs/${editorId}/status`);
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "1"]);
    expect((await control(emu, "POST", "/faults", { errorRate: 1, seed: 1 })).status).toBe(200);
    expect((await call(emu, "GET", "/v3/health")).status).toBeGreaterThanOrEqual(500);
    expect((await control(emu, "DELETE", "/faults")).status).toBe(200);
    expect((await call(emu, "GET", "/v3/health")).status).toBe(200);
    const count = await control(emu, "GET", `/requests/count?path=/v3/designs/${editorId}/status&status=429`);
    expect(count.body).toEqual({ count: 1 });
    const all = await control(emu, "GET", "/requests?method=GET");
    expect((all.body["requests"] as unknown[]).length).toBe(3);
    // includePast: the 401 may land before the wait is registered; no earlier 401 exists.
    const waiting = control(emu, "POST", "/requests/wait", { pathRegex: "^/v3/health$", status: 401, includePast: true });
    void call(emu, "GET", "/v3/health", { key: null });
    expect((await waiting).body["request"]).toMatchObject({ path: "/v3/health", status: 401 });
    expect((await control(emu, "POST", "/requests/wait", { path: "/never", timeoutMs: 10 })).status).toBe(408);
    expect((await control(emu, "DELETE", "/requests")).status).toBe(200);
    expect(emu.control.requests()).toEqual([]);
  });

  it("validates control bodies and answers 404 for unknown control routes", async () => {
    const emu = await start();
    expect((await control(emu, "POST", "/faults", { errorRate: 5 })).status).toBe(400);
    expect((await control(emu, "POST", "/fail-next", { fault: { explode: true } })).status).toBe(400);
    expect((await control(emu, "POST", "/fail-next", { match: { pathRegex: "(" }, fault: { hang: true } })).status).toBe(400);
    expect((await control(emu, "GET", "/nothing")).status).toBe(404);
    expect((await control(emu, "GET", "/designs/unknown")).status).toBe(404);
  });
});

describe("emulator: connections accepted", () => {
  /** One GET on a connection of its own (no agent: the socket closes after the answer). */
  const getOnNewConnection = (emu: RunningEmulator, path: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = httpGet(`${emu.baseUrl.replace(/\/api$/, "")}${path}`, { agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
    });

  it("counts each new TCP connection, not each request on a kept-alive one, and the bytes of all", async () => {
    const emu = await start();
    expect(emu.control.connections()).toEqual({ opened: 0, bytesRead: 0, bytesWritten: 0, bodyBytesSent: 0, bodyBytesDecoded: 0 });
    await getOnNewConnection(emu, "/__control/connections");
    await getOnNewConnection(emu, "/__control/connections");
    expect(emu.control.connections().opened).toBe(2);
    const afterTwo = emu.control.connections();
    expect(afterTwo.bytesRead).toBeGreaterThan(0);
    expect(afterTwo.bytesWritten).toBeGreaterThan(afterTwo.bytesRead);
    const agent = new Agent({ keepAlive: true });
    try {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve, reject) => {
          httpGet(`${emu.baseUrl}/v3/health`, { agent }, (res) => res.resume().on("end", resolve)).on("error", reject);
        });
      }
    } finally {
      agent.destroy();
    }
    expect(emu.control.connections().opened).toBe(3);
    expect((await control(emu, "GET", "/connections")).body).toMatchObject({ opened: 4 });
    expect(emu.control.connections().bytesWritten).toBeGreaterThan(afterTwo.bytesWritten);
  });
});
