/**
 * The contract pinned by fixtures (test/contract/fixtures/, from docs/service-facts.md): the real
 * client parses every fixture served by a node:http server on 127.0.0.1:0, AND the emulator's
 * answers have the same shape as the fixtures (same keys and types, recursively). A guess on
 * either side, or a fixture changed by one field, breaks a test here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { messageText } from "../../src/api/schemas.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { testClient } from "../api/client-fixtures.js";
import { startTestServer, type TestServer } from "../api/http-test-server.js";

const DIR = join(import.meta.dirname, "fixtures");
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(DIR, `${name}.json`), "utf8")) as unknown;

/**
 * Where `actual`'s shape differs from `expected`'s: `path: why` lines (empty: same shape).
 * Objects must have the same keys; each element of an array must match the shape of some
 * element of the expected array (an empty expected array accepts any array).
 */
export function shapeDiff(expected: unknown, actual: unknown, path = "$"): string[] {
  const kind = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (kind(expected) !== kind(actual)) return [`${path}: expected ${kind(expected)}, got ${kind(actual)}`];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length === 0) return [];
    return actual.flatMap((item, i) => {
      const tries = expected.map((e) => shapeDiff(e, item, `${path}[${i}]`));
      return tries.some((t) => t.length === 0) ? [] : (tries[0] ?? []);
    });
  }
  if (kind(expected) !== "object") return [];
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  const out: string[] = [];
  for (const k of Object.keys(e)) if (!(k in a)) out.push(`${path}.${k}: missing`);
  for (const k of Object.keys(a)) if (!(k in e)) out.push(`${path}.${k}: not in the fixture`);
  for (const k of Object.keys(e)) if (k in a) out.push(...shapeDiff(e[k], a[k], `${path}.${k}`));
  return out;
}

describe("shapeDiff (the check itself)", () => {
  it("flags one added, removed or retyped field, anywhere", () => {
    const status = fixture("status-idle") as Record<string, unknown>;
    expect(shapeDiff(status, status)).toEqual([]);
    expect(shapeDiff(status, { ...status, extra: 1 })).toEqual(["$.extra: not in the fixture"]);
    const { availableFiles: _dropped, ...missing } = status;
    expect(shapeDiff(status, missing)).toEqual(["$.availableFiles: missing"]);
    expect(shapeDiff(status, { ...status, activeArtifactId: null })).toEqual(["$.activeArtifactId: expected string, got null"]);
    const messages = fixture("messages") as { items: Record<string, unknown>[] };
    const renamed = { ...messages, items: messages.items.map(({ timeCreated, ...rest }) => ({ ...rest, createdAt: timeCreated })) };
    expect(shapeDiff(messages, renamed)).toContain("$.items[0].timeCreated: missing");
  });
});

describe("the client parses every fixture", () => {
  let server: TestServer;
  const answers = new Map<string, unknown>();
  const route = (method: string, path: string, name: string): void => void answers.set(`${method} ${path}`, fixture(name));
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      const key = `${req.method} ${req.url.replace(/^\/api/, "")}`;
      const body = answers.has(key) ? answers.get(key) : { error: `no fixture for ${key}` };
      res.writeHead(answers.has(key) ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
  });
  afterEach(() => answers.clear());
  afterAll(async () => server.close());

  it("status before and after the first artifact", async () => {
    const client = testClient(server.baseUrl);
    route("GET", "/v3/designs/e1/status", "status-first-generation");
    expect(await client.getStatus("e1")).toEqual({ isGenerating: true, activeArtifactId: null, availableFiles: [] });
    route("GET", "/v3/designs/e1/status", "status-idle");
    expect((await client.getStatus("e1")).activeArtifactId).toBe((fixture("status-idle") as { activeArtifactId: string }).activeArtifactId);
    await client.close();
  });

  it("active-artifact: an artifact, and every plausible 'none yet' answer becomes NO_ARTIFACT", async () => {
    const client = testClient(server.baseUrl);
    route("GET", "/v3/designs/e1/active-artifact", "active-artifact");
    expect((await client.getActiveArtifact("e1")).files).toContain("App.tsx");
    for (const none of ["active-artifact-none-null", "active-artifact-none-object"]) {
      route("GET", "/v3/designs/e1/active-artifact", none);
      await expect(client.getActiveArtifact("e1")).rejects.toMatchObject({ code: "NO_ARTIFACT" });
    }
    // A 404 there, with status confirming the design exists without an artifact.
    answers.delete("GET /v3/designs/e1/active-artifact");
    route("GET", "/v3/designs/e1/status", "status-first-generation");
    await expect(client.getActiveArtifact("e1")).rejects.toMatchObject({ code: "NO_ARTIFACT" });
    // A 404 for a design that does not exist stays NOT_FOUND.
    answers.clear();
    await expect(client.getActiveArtifact("e1")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await client.close();
  });

  it("chat history: text parts joined, unknown part types and fields ignored", async () => {
    const client = testClient(server.baseUrl);
    route("GET", "/v3/designs/e1/messages?skip=0", "messages");
    const page = await client.listMessages("e1");
    expect(page.items.map((m) => [m.role, messageText(m)])).toEqual([
      ["assistant", "Added a pricing table."],
      ["user", "Add a pricing table"],
    ]);
    route("GET", "/v3/designs/e1/messages?skip=0", "messages-unknown-parts");
    const odd = await client.listMessages("e1");
    expect(odd.hasMore).toBe(true);
    expect(messageText(odd.items[0]!)).toBe("Done: the header is sticky.");
    await client.close();
  });

  it("design systems in any envelope", async () => {
    const client = testClient(server.baseUrl);
    for (const [name, first] of [
      ["design-systems-bare", "Base"],
      ["design-systems-wrapped", "Base"],
      ["design-systems-items", "Wireframe"],
    ] as const) {
      route("GET", "/v3/design-systems", name);
      const list = await client.listDesignSystems();
      expect(list[0]?.name).toBe(first);
      expect(list[0]?.id).toMatch(/^ds-/);
    }
    await client.close();
  });

  it("publish, loosely: compiled files when given, nothing assumed otherwise", async () => {
    const client = testClient(server.baseUrl);
    route("POST", "/v3/designs/e1/artifacts/a1/publish", "publish-compiled-files");
    expect((await client.publish("e1", "a1")).compiledFiles).toHaveLength(4);
    route("POST", "/v3/designs/e1/artifacts/a1/publish", "publish-empty");
    expect(await client.publish("e1", "a1")).toEqual({ previewUrl: undefined, compiledFiles: undefined });
    await client.close();
  });

  it("the other endpoints", async () => {
    const client = testClient(server.baseUrl);
    route("POST", "/v3/designs", "create-design-prompted");
    expect((await client.createDesign({ prompt: "x" })).activeArtifactId).toBeNull();
    route("GET", "/v3/designs/e1/versions?skip=0", "versions");
    expect((await client.listVersions("e1")).versions.map((v) => v.versionLabel)).toEqual(["v2", "v1"]);
    route("POST", "/v3/designs/e1/artifacts/a1/files/read", "files-read");
    expect((await client.readFiles("e1", "a1", ["App.tsx"]))[0]?.name).toBe("App.tsx");
    route("PATCH", "/v3/designs/e1/artifacts/a1/files", "files-write");
    expect(await client.writeFiles("e1", "a1", [{ fileName: "App.tsx", code: "x" }])).toContain("App.tsx");
    route("POST", "/v3/designs/e1/artifacts", "create-artifact");
    expect((await client.createArtifact("e1", { sourceArtifactId: "a1", name: "snap" })).files).toContain("App.tsx");
    route("POST", "/v3/designs/e1/prompts", "prompt");
    expect((await client.sendPrompt("e1", { prompt: "x" })).requestId).toBe("req_01HZX3");
    route("POST", "/v3/designs/resolve-url", "resolve-url");
    expect(await client.resolveUrl("https://www.magicpatterns.com/c/abc")).toMatch(/^[a-z0-9]{22}$/);
    await client.close();
  });
});

describe("the emulator answers in the fixtures' shapes", () => {
  const KEY = "contract-key";
  let emu: RunningEmulator;
  const get = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${emu.baseUrl}${path}`, {
      method,
      headers: { "x-mp-api-key": KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const expectShape = (name: string, body: unknown): void => expect(shapeDiff(fixture(name), body), name).toEqual([]);
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, host: "127.0.0.1", keys: [KEY], generationMs: 600_000 });
  });
  afterAll(async () => emu.close());

  it("a prompted design: create, status and active-artifact before its first version, then after", async () => {
    const created = await get("POST", "/v3/designs", { prompt: "Add a pricing table" });
    expectShape("create-design-prompted", created.body);
    const editorId = (created.body as { editorId: string }).editorId;
    expectShape("status-first-generation", (await get("GET", `/v3/designs/${editorId}/status`)).body);
    const none = await get("GET", `/v3/designs/${editorId}/active-artifact`);
    expect(none.status).toBe(404);
    expectShape("error", none.body);
    emu.control.finishGeneration(editorId);
    expectShape("status-idle", (await get("GET", `/v3/designs/${editorId}/status`)).body);
    expectShape("active-artifact", (await get("GET", `/v3/designs/${editorId}/active-artifact`)).body);
    expectShape("messages", (await get("GET", `/v3/designs/${editorId}/messages?skip=0`)).body);
    expectShape("versions", (await get("GET", `/v3/designs/${editorId}/versions?skip=0`)).body);
  });

  it("files, artifacts, prompts, publish, design systems, resolve-url", async () => {
    const created = await get("POST", "/v3/designs", { name: "Blank" });
    expectShape("create-design-blank", created.body);
    const { editorId, activeArtifactId: artifactId } = created.body as { editorId: string; activeArtifactId: string };
    const base = `/v3/designs/${editorId}/artifacts/${artifactId}`;
    expectShape("files-read", (await get("POST", `${base}/files/read`, { fileNames: ["App.tsx"] })).body);
    expectShape(
      "files-write",
      (await get("PATCH", `${base}/files`, { files: [{ fileName: "App.tsx", code: "export function App() { return null; }\n" }] })).body,
    );
    expectShape("publish-compiled-files", (await get("POST", `${base}/publish`)).body);
    expectShape("create-artifact", (await get("POST", `/v3/designs/${editorId}/artifacts`, { sourceArtifactId: artifactId, name: "snap" })).body);
    expectShape("prompt", (await get("POST", `/v3/designs/${editorId}/prompts`, { prompt: "Add a footer" })).body);
    expectShape("design-systems-bare", (await get("GET", "/v3/design-systems")).body);
    expectShape("resolve-url", (await get("POST", "/v3/designs/resolve-url", { url: `https://www.magicpatterns.com/c/${editorId}` })).body);
  });

  it("refuses what the real service does not take: images on a prompt", async () => {
    const { editorId } = emu.control.createDesign(KEY);
    const refused = await get("POST", `/v3/designs/${editorId}/prompts`, { prompt: "x", imageUrls: ["https://example.com/a.png"] });
    expect(refused.status).toBe(400);
    expectShape("error", refused.body);
  });
});
