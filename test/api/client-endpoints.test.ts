import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { READ_FILES_BATCH_SIZE } from "../../src/api/client.js";
import { sendJson, startTestServer, type TestServer } from "./http-test-server.js";
import { API_KEY, ARTIFACT_ID, EDITOR_ID, STATUS_BODY, testClient } from "./client-fixtures.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const design = {
  editorId: EDITOR_ID,
  editorUrl: `https://www.magicpatterns.com/c/${EDITOR_ID}`,
  previewUrl: null,
  activeArtifactId: ARTIFACT_ID,
  availableFiles: ["App.tsx", "index.tsx"],
};

function version(n: number): { artifactId: string; versionLabel: string; title: string; timeCreated: number } {
  return { artifactId: `a-${n}`, versionLabel: `v${n}`, title: `t${n}`, timeCreated: 1_700_000_000_000 + n };
}

describe("client endpoints", () => {
  it("sends each call to its path with the key, JSON body and validated response", async () => {
    server = await startTestServer((req, res) => {
      const routes: Record<string, unknown> = {
        "GET /api/v3/health": { status: "ok" },
        "POST /api/v3/designs": design,
        "POST /api/v3/designs/resolve-url": { editorId: EDITOR_ID },
        [`GET /api/v3/designs/${EDITOR_ID}/status`]: STATUS_BODY,
        [`GET /api/v3/designs/${EDITOR_ID}/active-artifact`]: { artifactId: ARTIFACT_ID, files: ["App.tsx"] },
        [`PATCH /api/v3/designs/${EDITOR_ID}/artifacts/${ARTIFACT_ID}/files`]: { files: ["App.tsx", "new.ts"] },
        [`POST /api/v3/designs/${EDITOR_ID}/artifacts`]: { artifactId: "clone", files: ["App.tsx"] },
        [`POST /api/v3/designs/${EDITOR_ID}/prompts`]: { requestId: "r1" },
        [`POST /api/v3/designs/${EDITOR_ID}/artifacts/${ARTIFACT_ID}/publish`]: { compiledFiles: ["App.tsx"] },
        "GET /api/v3/design-systems": { designSystems: [{ id: "ds-1", name: "Material" }] },
        [`GET /api/v3/designs/${EDITOR_ID}/messages?skip=10`]: { items: [], hasMore: false },
        [`GET /api/v3/designs/${EDITOR_ID}/versions?skip=0`]: { versions: [version(1)], hasMore: false },
      };
      const body = routes[`${req.method} ${req.url}`];
      if (body === undefined) sendJson(res, 404, { error: `no route ${req.method} ${req.url}` });
      else sendJson(res, 200, body);
    });
    const client = testClient(server.baseUrl);
    expect(await client.health()).toEqual({ status: "ok" });
    expect(await client.createDesign({ name: "x" })).toEqual(design);
    expect(await client.resolveUrl(`https://www.magicpatterns.com/c/${EDITOR_ID}`)).toBe(EDITOR_ID);
    expect(await client.getStatus(EDITOR_ID)).toEqual(STATUS_BODY);
    expect(await client.getActiveArtifact(EDITOR_ID)).toEqual({ artifactId: ARTIFACT_ID, files: ["App.tsx"] });
    expect(await client.writeFiles(EDITOR_ID, ARTIFACT_ID, [{ fileName: "new.ts", code: "x" }])).toEqual(["App.tsx", "new.ts"]);
    expect(await client.createArtifact(EDITOR_ID, { sourceArtifactId: ARTIFACT_ID, name: "snap" })).toEqual({
      artifactId: "clone",
      files: ["App.tsx"],
    });
    expect(await client.sendPrompt(EDITOR_ID, { prompt: "make it blue" })).toEqual({ requestId: "r1" });
    expect(await client.publish(EDITOR_ID, ARTIFACT_ID)).toEqual({ previewUrl: undefined, compiledFiles: ["App.tsx"] });
    expect(await client.listDesignSystems()).toEqual([{ id: "ds-1", name: "Material" }]);
    expect(await client.listMessages(EDITOR_ID, 10)).toEqual({ items: [], hasMore: false });
    expect(await client.listVersions(EDITOR_ID)).toEqual({ versions: [version(1)], hasMore: false });
    await client.close();

    for (const req of server.requests) {
      expect(req.headers["x-mp-api-key"]).toBe(API_KEY);
      expect(req.headers.accept).toBe("application/json");
      if (req.body !== "") expect(req.headers["content-type"]).toBe("application/json");
    }
    const patch = server.requests.find((r) => r.method === "PATCH");
    expect(JSON.parse(patch?.body ?? "")).toEqual({ files: [{ fileName: "new.ts", code: "x" }] });
  });

  it("active-artifact: a 404 while status says no version is NO_ARTIFACT; a version that landed between the two calls is read again", async () => {
    let landed = false;
    server = await startTestServer((req, res) => {
      if (req.url.endsWith("/active-artifact")) {
        if (!landed) {
          landed = true; // the first version lands right after this 404
          return sendJson(res, 404, { error: "No active artifact" });
        }
        return sendJson(res, 200, { artifactId: ARTIFACT_ID, files: ["App.tsx"] });
      }
      if (req.url.endsWith("/status")) return sendJson(res, 200, { ...STATUS_BODY, activeArtifactId: landed ? ARTIFACT_ID : null });
      return sendJson(res, 404, { error: "no route" });
    });
    const client = testClient(server.baseUrl);
    expect(await client.getActiveArtifact(EDITOR_ID)).toEqual({ artifactId: ARTIFACT_ID, files: ["App.tsx"] });
    expect(server.requests.map((r) => r.url.split("/").pop())).toEqual(["active-artifact", "status", "active-artifact"]);
    await client.close();
  });

  it("active-artifact: a 404 on a design whose status shows a version twice in a row is NOT_FOUND (no loop)", async () => {
    server = await startTestServer((req, res) => {
      if (req.url.endsWith("/status")) return sendJson(res, 200, STATUS_BODY);
      return sendJson(res, 404, { error: "Design not found" });
    });
    const client = testClient(server.baseUrl);
    await expect(client.getActiveArtifact(EDITOR_ID)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(server.requests.map((r) => r.url.split("/").pop())).toEqual(["active-artifact", "status", "active-artifact", "status"]);
    await client.close();
  });

  it("encodes path parameters", async () => {
    server = await startTestServer((_req, res) => sendJson(res, 200, STATUS_BODY));
    const client = testClient(server.baseUrl);
    await client.getStatus("a/b?c");
    await client.close();
    expect(server.requests[0]?.url).toBe("/api/v3/designs/a%2Fb%3Fc/status");
  });

  it("refuses an invalid request body before sending it", async () => {
    server = await startTestServer((_req, res) => sendJson(res, 200, {}));
    const client = testClient(server.baseUrl);
    const err = await client.writeFiles(EDITOR_ID, ARTIFACT_ID, []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("BAD_REQUEST");
    expect((err as ApiError).message).toMatch(/^invalid request to PATCH \/v3\/designs\/\{editorId\}\/artifacts\/\{artifactId\}\/files: files/);
    await expect(client.getStatus("")).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(client.createDesign({ prompt: "x", imageUrls: ["not a url"] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await client.close();
    expect(server.requests).toHaveLength(0);
  });

  it("reads files in batches through the queue, concurrently, and flattens them in order", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    server = await startTestServer(async (req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      const { fileNames } = JSON.parse(req.body) as { fileNames: string[] };
      // The real service leaves out names that do not exist.
      sendJson(res, 200, { files: fileNames.filter((n) => n !== "missing").map((name) => ({ name, content: `c:${name}` })) });
    });
    const names = Array.from({ length: READ_FILES_BATCH_SIZE * 2 + 5 }, (_, i) => `f${i}.ts`);
    const client = testClient(server.baseUrl);
    const files = await client.readFiles(EDITOR_ID, ARTIFACT_ID, [...names, "missing"]);
    await client.close();
    expect(server.requests).toHaveLength(3);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(files.map((f) => f.name)).toEqual(names);
    expect(files[0]).toEqual({ name: "f0.ts", content: "c:f0.ts" });
    const other = testClient(server.baseUrl);
    expect(await other.readFiles(EDITOR_ID, ARTIFACT_ID, [])).toEqual([]);
    await other.close();
    expect(server.requests).toHaveLength(3);
    // The batch size is an option (scripts/bench/read-batch.mjs measures it).
    const small = testClient(server.baseUrl, { readBatchSize: 2 });
    expect((await small.readFiles(EDITOR_ID, ARTIFACT_ID, ["a", "b", "c", "d", "e"])).map((f) => f.name)).toEqual(["a", "b", "c", "d", "e"]);
    await small.close();
    expect(server.requests).toHaveLength(6);
  });

  it("reads a batch answered 413 or past the size cap again in halves; a file too large alone goes to onTooLarge, or fails the read", async () => {
    server = await startTestServer((req, res) => {
      const { fileNames } = JSON.parse(req.body) as { fileNames: string[] };
      // More than two names, or big.ts, do not fit: 413 for some, a body past the cap for others.
      if (fileNames.includes("big.ts") && fileNames.length === 1) return sendJson(res, 200, { files: [{ name: "big.ts", content: "x".repeat(4096) }] });
      if (fileNames.length > 2 || fileNames.includes("big.ts")) return sendJson(res, 413, { error: "request entity too large" });
      sendJson(res, 200, { files: fileNames.map((name) => ({ name, content: `c:${name}` })) });
    });
    const client = testClient(server.baseUrl, { maxResponseBytes: 1024 });
    const tooLarge: string[] = [];
    const files = await client.readFiles(EDITOR_ID, ARTIFACT_ID, ["a", "b", "c", "big.ts", "d"], { onTooLarge: (n) => tooLarge.push(n) });
    expect(files.map((f) => f.name)).toEqual(["a", "b", "c", "d"]);
    expect(tooLarge).toEqual(["big.ts"]);
    await expect(client.readFiles(EDITOR_ID, ARTIFACT_ID, ["a", "big.ts"])).rejects.toMatchObject({ code: "TOO_LARGE" });
    await client.close();
  });

  it("pages versions with skip until hasMore is false", async () => {
    const total = 45;
    server = await startTestServer((req, res) => {
      const skip = Number(new URL(req.url, "http://x").searchParams.get("skip"));
      const versions = Array.from({ length: Math.max(0, Math.min(20, total - skip)) }, (_, i) => version(total - skip - i));
      sendJson(res, 200, { versions, hasMore: skip + versions.length < total });
    });
    const client = testClient(server.baseUrl);
    const all = await client.listAllVersions(EDITOR_ID);
    await client.close();
    expect(all).toHaveLength(total);
    expect(all[0]?.versionLabel).toBe("v45");
    expect(all.at(-1)?.versionLabel).toBe("v1");
    expect(server.requests.map((r) => r.url)).toEqual([0, 20, 40].map((s) => `/api/v3/designs/${EDITOR_ID}/versions?skip=${s}`));
  });

  it("stops paging when a server says hasMore but sends an empty page", async () => {
    server = await startTestServer((req, res) => {
      const skip = Number(new URL(req.url, "http://x").searchParams.get("skip"));
      sendJson(res, 200, { versions: skip === 0 ? [version(2), version(1)] : [], hasMore: true });
    });
    const client = testClient(server.baseUrl);
    expect(await client.listAllVersions(EDITOR_ID)).toHaveLength(2);
    await client.close();
    expect(server.requests).toHaveLength(2);
  });
});
