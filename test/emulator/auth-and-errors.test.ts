import { describe, expect, it } from "vitest";
import { errorBodySchema, healthResponseSchema } from "../../src/api/schemas.js";
import { call, createBlank, json, KEY_A, KEY_B, useEmulators } from "./helpers.js";

const start = useEmulators();

describe("emulator: health and authentication", () => {
  it("answers health with a key, 401 without one", async () => {
    const emu = await start();
    expect(emu.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const ok = await call(emu, "GET", "/v3/health");
    expect(ok.status).toBe(200);
    expect(healthResponseSchema.parse(ok.body)).toEqual({ status: "ok" });
    const missing = await call(emu, "GET", "/v3/health", { key: null });
    expect(missing.status).toBe(401);
    expect(errorBodySchema.parse(missing.body).error).toMatch(/x-mp-api-key/);
    expect((await call(emu, "GET", "/v3/health", { key: "  " })).status).toBe(401);
  });

  it("accepts only configured keys when keys are given", async () => {
    const emu = await start({ keys: [KEY_A] });
    expect((await call(emu, "GET", "/v3/health")).status).toBe(200);
    const wrong = await call(emu, "GET", "/v3/health", { key: KEY_B });
    expect(wrong.status).toBe(401);
    expect(json(wrong)["error"]).toBe("Invalid API key");
  });

  it("gives 403 on another key's design, for every design endpoint", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu, KEY_A);
    const base = `/v3/designs/${editorId}`;
    const attempts: Array<[string, string, unknown?]> = [
      ["GET", `${base}/status`],
      ["GET", `${base}/active-artifact`],
      ["GET", `${base}/versions`],
      ["GET", `${base}/messages`],
      ["POST", `${base}/prompts`, { prompt: "steal" }],
      ["POST", `${base}/artifacts`, { sourceArtifactId: artifactId, name: "x" }],
      ["PATCH", `${base}/artifacts/${artifactId}/files`, { files: [{ fileName: "a.ts", code: "" }] }],
      ["POST", `${base}/artifacts/${artifactId}/files/read`, { fileNames: ["App.tsx"] }],
      ["POST", `${base}/artifacts/${artifactId}/publish`],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await call(emu, method, path, { body, key: KEY_B });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(errorBodySchema.safeParse(answer.body).success).toBe(true);
    }
    expect(emu.control.getFiles(editorId)["a.ts"]).toBeUndefined();
    expect(emu.control.getDesign(editorId).versions).toHaveLength(1);
  });

  it("gives 404 for unknown designs, artifacts and routes", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    expect((await call(emu, "GET", "/v3/designs/nosuchdesign/status")).status).toBe(404);
    const artifact = await call(emu, "POST", `/v3/designs/${editorId}/artifacts/not-an-artifact/files/read`, {
      body: { fileNames: ["App.tsx"] },
    });
    expect(artifact.status).toBe(404);
    expect(json(artifact)["error"]).toMatch(/not-an-artifact/);
    const route = await call(emu, "GET", "/v3/nothing/here");
    expect(route.status).toBe(404);
    expect(errorBodySchema.safeParse(route.body).success).toBe(true);
    const outsideApi = await fetch(`${emu.baseUrl.replace(/\/api$/, "")}/v3/health`);
    expect(outsideApi.status).toBe(404);
  });

  it("answers 405 with Allow on a known path with the wrong method", async () => {
    const emu = await start();
    const answer = await call(emu, "DELETE", "/v3/health");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET");
  });

  it("gives 400 naming the problem for invalid JSON, bad bodies and bad query", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    const invalidJson = await call(emu, "POST", "/v3/designs", { rawBody: "{nope" });
    expect(invalidJson.status).toBe(400);
    expect(json(invalidJson)["error"]).toMatch(/^Invalid JSON body/);
    const unknownField = await call(emu, "POST", "/v3/designs", { body: { nmae: "typo" } });
    expect(unknownField.status).toBe(400);
    expect(json(unknownField)["error"]).toMatch(/nmae/);
    const emptyFiles = await call(emu, "PATCH", `/v3/designs/${editorId}/artifacts/${artifactId}/files`, { body: { files: [] } });
    expect(emptyFiles.status).toBe(400);
    expect(json(emptyFiles)["error"]).toMatch(/body\.files/);
    const noPrompt = await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: {} });
    expect(noPrompt.status).toBe(400);
    expect(json(noPrompt)["error"]).toMatch(/body\.prompt/);
    for (const skip of ["-1", "abc", "1.5"]) {
      const answer = await call(emu, "GET", `/v3/designs/${editorId}/versions?skip=${skip}`);
      expect(answer.status, skip).toBe(400);
      expect(json(answer)["error"]).toMatch(/query\.skip/);
    }
    const badImage = await call(emu, "POST", "/v3/designs", { body: { prompt: "x", imageUrls: ["not a url"] } });
    expect(badImage.status).toBe(400);
  });
});
