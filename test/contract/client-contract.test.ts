/** The real client against the real emulator: every endpoint and every documented error status. */
import { messageText } from "../../src/api/schemas.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClosableV3Client } from "../../src/api/client.js";
import { ApiError } from "../../src/api/errors.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { createMemoryPollLedger, PollScheduler } from "../../src/scheduling/poll-scheduler.js";
import { createSystemClock } from "../../src/core/clock.js";

const KEY = "mp_contract_owner_key_1";
const OTHER_KEY = "mp_contract_other_key_2";

let emulator: RunningEmulator;
let client: ClosableV3Client;

function clientFor(apiKey: string): ClosableV3Client {
  return createClient({ baseUrl: emulator.baseUrl, apiKey, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
}

async function failure(call: Promise<unknown>): Promise<ApiError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, keys: [KEY, OTHER_KEY], generationMs: 30 });
  client = clientFor(KEY);
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe("every endpoint", () => {
  it("health", async () => {
    expect(await client.health()).toEqual({ status: "ok" });
  });

  it("a blank design: create, status, active artifact, read, write, clone, versions, resolve-url", async () => {
    const design = await client.createDesign({ name: "Contract" });
    expect(design.activeArtifactId).not.toBeNull();
    expect([...design.availableFiles].sort()).toEqual(["App.tsx", "index.css", "index.tsx", "tailwind.config.js"]);
    const { editorId } = design;
    const artifactId = design.activeArtifactId ?? "";

    expect(await client.getStatus(editorId)).toEqual({ isGenerating: false, activeArtifactId: artifactId, availableFiles: design.availableFiles });
    expect((await client.getActiveArtifact(editorId)).artifactId).toBe(artifactId);

    const names = await client.writeFiles(editorId, artifactId, [{ fileName: "components/Button.tsx", code: "export const B = 1;\n" }]);
    expect(names).toContain("components/Button.tsx");
    const files = await client.readFiles(editorId, artifactId, ["components/Button.tsx", "does-not-exist.ts"]);
    expect(files).toEqual([{ name: "components/Button.tsx", content: "export const B = 1;\n" }]);

    const clone = await client.createArtifact(editorId, { sourceArtifactId: artifactId, name: "snapshot" });
    expect(clone.artifactId).not.toBe(artifactId);
    expect((await client.getActiveArtifact(editorId)).artifactId).toBe(clone.artifactId);
    const versions = await client.listAllVersions(editorId);
    expect(versions.map((v) => v.versionLabel)).toEqual(["v2", "v1"]);
    expect(versions[0]?.title).toBe("snapshot");

    expect(await client.resolveUrl(design.editorUrl)).toBe(editorId);
    expect(await client.resolveUrl(emulator.control.getDesign(editorId).canvasUrl)).toBe(editorId);
  });

  it("publish makes a new active version holding the same files; the published URL resolves", async () => {
    const { editorId, artifactId } = emulator.control.createDesign(KEY);
    const published = await client.publish(editorId, artifactId);
    expect(published.compiledFiles?.length).toBeGreaterThan(0);
    const active = await client.getActiveArtifact(editorId);
    expect(active.artifactId).not.toBe(artifactId);
    expect(emulator.control.getFiles(editorId)).toEqual(emulator.control.getFiles(editorId, artifactId));
    expect((await client.listAllVersions(editorId)).map((v) => v.versionLabel)).toEqual(["v2", "v1"]);
    const previewUrl = emulator.control.getDesign(editorId).previewUrl;
    expect(await client.resolveUrl(previewUrl ?? "")).toBe(editorId);
  });

  it("design systems and messages", async () => {
    const systems = await client.listDesignSystems();
    expect(systems.length).toBeGreaterThan(0);
    const design = await client.createDesign({ name: "with ds", designSystemId: systems[0]?.id ?? "" });
    expect(design.editorId).not.toBe("");
    expect(await client.listMessages(design.editorId)).toEqual({ items: [], hasMore: false });
  });

  it("a prompt: create with a prompt, poll until idle, prompt again", async () => {
    // Generations end when the test says (finishGeneration), so "no version yet" is not a race
    // against a 30 ms generation.
    const slow = await startEmulator({ port: 0, keys: [KEY], generationMs: 600_000 });
    const own = createClient({ baseUrl: slow.baseUrl, apiKey: KEY, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      const scheduler = new PollScheduler({ intervalMs: 10, clock: createSystemClock(), ledger: createMemoryPollLedger() });
      const design = await own.createDesign({ prompt: "a pricing page" });
      expect(design.activeArtifactId).toBeNull();
      const waitIdle = async (): Promise<string | null> => {
        for (;;) {
          const status = await scheduler.poll(design.editorId, () => own.getStatus(design.editorId));
          if (!status.isGenerating) return status.activeArtifactId;
        }
      };
      expect(await own.getStatus(design.editorId)).toMatchObject({ isGenerating: true, activeArtifactId: null });
      await expect(own.getActiveArtifact(design.editorId)).rejects.toMatchObject({ code: "NO_ARTIFACT" });
      slow.control.finishGeneration(design.editorId);
      const first = await waitIdle();
      expect(first).not.toBeNull();
      expect((await own.getActiveArtifact(design.editorId)).artifactId).toBe(first);
      expect(await own.sendPrompt(design.editorId, { prompt: "make it dark" })).toEqual({ requestId: expect.any(String) });
      slow.control.finishGeneration(design.editorId);
      expect(await waitIdle()).not.toBe(first);
      const messages = await own.listMessages(design.editorId);
      expect(messages.items.map((m) => m.role)).toEqual(["assistant", "user", "assistant", "user"]);
      expect(messageText(messages.items[1]!)).toBe("make it dark");
    } finally {
      await own.close();
      await slow.close();
    }
  });
});

describe("documented error statuses", () => {
  it("400: a body the service refuses", async () => {
    const err = await failure(client.resolveUrl("::not a url::"));
    expect(err).toMatchObject({ code: "BAD_REQUEST", status: 400, endpoint: "POST /v3/designs/resolve-url", retryable: false });
    expect(err.message).toMatch(/^could not resolve the URL: 400 url is not a valid URL/);
  });

  it("401: a key the service does not know, with the login hint", async () => {
    const stranger = clientFor("mp_unknown_key_999");
    const err = await failure(stranger.health());
    await stranger.close();
    expect(err).toMatchObject({ code: "UNAUTHORIZED", status: 401, serverMessage: "Invalid API key" });
    expect(err.hint).toBe("API key missing or invalid: set MP_API_KEY or run mpsync login");
    expect(JSON.stringify(err) + err.message).not.toContain("mp_unknown_key_999");
  });

  it("402: out of credits on a generation call; reads keep working", async () => {
    const poor = "mp_contract_poor_key_3";
    const local = await startEmulator({ port: 0, keys: [poor], credits: 0 });
    const poorClient = createClient({ baseUrl: local.baseUrl, apiKey: poor });
    const { editorId } = local.control.createDesign(poor);
    const err = await failure(poorClient.sendPrompt(editorId, { prompt: "x" }));
    expect(err).toMatchObject({ code: "PAYMENT_REQUIRED", status: 402, endpoint: "POST /v3/designs/{editorId}/prompts" });
    expect(local.control.countRequests((r) => r.path.endsWith("/prompts"))).toBe(1);
    expect((await poorClient.getStatus(editorId)).isGenerating).toBe(false);
    await poorClient.close();
    await local.close();
  });

  it("403: another account's design", async () => {
    const { editorId } = emulator.control.createDesign(OTHER_KEY);
    const err = await failure(client.getStatus(editorId));
    expect(err).toMatchObject({ code: "FORBIDDEN", status: 403, endpoint: "GET /v3/designs/{editorId}/status" });
    expect(emulator.control.countRequests((r) => r.path === `/v3/designs/${editorId}/status`)).toBe(1);
  });

  it("404: an unknown design", async () => {
    const err = await failure(client.getActiveArtifact("zzzzzzzzzzzzzzzzzzzzzz"));
    expect(err).toMatchObject({ code: "NOT_FOUND", status: 404, endpoint: "GET /v3/designs/{editorId}/active-artifact" });
  });

  it("422: publishing code that does not compile carries the compiler message", async () => {
    const { editorId, artifactId } = emulator.control.createDesign(KEY, { files: { "App.tsx": "export default function App( {\n" } });
    const err = await failure(client.publish(editorId, artifactId));
    expect(err).toMatchObject({ code: "UNPROCESSABLE", status: 422, retryable: false });
    expect(err.serverMessage).toMatch(/^Compilation failed: App\.tsx/);
    expect(emulator.control.countRequests((r) => r.path === `/v3/designs/${editorId}/artifacts/${artifactId}/publish`)).toBe(1);
  });
});

describe("paging", () => {
  it("lists every version past 40, newest first, with skip", async () => {
    const { editorId } = emulator.control.createDesign(KEY);
    for (let i = 2; i <= 45; i++) emulator.control.setFiles(editorId, { "App.tsx": `// v${i}\n` }, { newArtifact: true, title: `t${i}` });
    emulator.control.resetRequestLog();
    const versions = await client.listAllVersions(editorId);
    expect(versions).toHaveLength(45);
    expect(versions[0]?.versionLabel).toBe("v45");
    expect(versions.at(-1)?.versionLabel).toBe("v1");
    expect(emulator.control.requests().map((r) => r.search)).toEqual(["?skip=0", "?skip=20", "?skip=40"]);
  });
});
