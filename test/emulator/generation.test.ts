import { describe, expect, it } from "vitest";
import { designSchema, designStatusSchema, messagesPageSchema, promptResponseSchema, messageText } from "../../src/api/schemas.js";
import { call, createBlank, json, KEY_A, KEY_B, useEmulators, waitUntilIdle } from "./helpers.js";

const start = useEmulators();

describe("emulator: generation", () => {
  it("create with a prompt answers at once, generates for generationMs, then shows a new artifact", async () => {
    // Long enough that the status call below surely lands while generating, even on a slow CI box.
    const emu = await start({ generationMs: 1000 });
    const answer = await call(emu, "POST", "/v3/designs", { body: { name: "Shop", prompt: "Add a pricing table" } });
    expect(answer.status).toBe(200);
    const design = designSchema.parse(answer.body);
    expect(design.activeArtifactId).toBeNull();
    expect(design.availableFiles).toEqual([]);
    const during = designStatusSchema.parse((await call(emu, "GET", `/v3/designs/${design.editorId}/status`)).body);
    expect(during.isGenerating).toBe(true);
    // No artifact until the first generation ends (docs/service-facts.md#status).
    expect(during.activeArtifactId).toBeNull();
    expect(during.availableFiles).toEqual([]);
    expect((await call(emu, "GET", `/v3/designs/${design.editorId}/active-artifact`)).status).toBe(404);
    const idle = designStatusSchema.parse(await waitUntilIdle(emu, design.editorId));
    expect(idle.activeArtifactId).not.toBeNull();
    expect(idle.availableFiles).toContain("components/AddAPricing.tsx");
    const files = emu.control.getFiles(design.editorId);
    expect(files["App.tsx"]).toContain('{"Add a pricing table"}');
    expect(files["App.tsx"]).toContain('import { AddAPricing } from "./components/AddAPricing";');
    expect(files["App.tsx"]).toContain("<AddAPricing />");
    expect(emu.control.getDesign(design.editorId).versions.map((v) => v.title)).toEqual(["Add a pricing table"]);
    expect(emu.control.getCredits(KEY_A)).toBe(999);
  });

  it("a generated artifact still compiles", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    emu.control.startGeneration(editorId, 'Hero with "quotes" and {braces} </div>');
    const outcome = emu.control.finishGeneration(editorId);
    const artifactId = outcome.artifactId ?? "";
    const publish = await call(emu, "POST", `/v3/designs/${editorId}/artifacts/${artifactId}/publish`);
    expect(publish.status, publish.text).toBe(200);
  });

  it("prompts: requestId, 1 credit, deterministic edits, chat messages", async () => {
    const emu = await start();
    const one = await createBlank(emu);
    const two = await createBlank(emu);
    for (const d of [one, two]) {
      const answer = await call(emu, "POST", `/v3/designs/${d.editorId}/prompts`, { body: { prompt: "Make a login form" } });
      expect(answer.status).toBe(200);
      expect(promptResponseSchema.parse(answer.body).requestId).toMatch(/^[0-9a-f-]{36}$/);
      await waitUntilIdle(emu, d.editorId);
    }
    expect(emu.control.getFiles(one.editorId)).toEqual(emu.control.getFiles(two.editorId));
    expect(emu.control.getCredits(KEY_A)).toBe(998);
    const messages = messagesPageSchema.parse((await call(emu, "GET", `/v3/designs/${one.editorId}/messages`)).body);
    expect(messages.hasMore).toBe(false);
    expect(messages.items.map((m) => [m.role, messageText(m)])).toEqual([
      ["assistant", "Updated App.tsx and added components/MakeALogin.tsx"],
      ["user", "Make a login form"],
    ]);
  });

  it("the same prompt again updates the component instead of adding one", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    emu.control.startGeneration(editorId, "Add footer");
    emu.control.finishGeneration(editorId);
    emu.control.startGeneration(editorId, "Add footer");
    emu.control.finishGeneration(editorId);
    const files = emu.control.getFiles(editorId);
    expect(files["components/AddFooter.tsx"]).toContain('data-revision="2"');
    expect(files["App.tsx"]?.match(/<AddFooter \/>/g)).toHaveLength(1);
    const page = messagesPageSchema.parse((await call(emu, "GET", `/v3/designs/${editorId}/messages`)).body);
    expect(messageText(page.items[0]!)).toBe("Updated App.tsx and updated components/AddFooter.tsx");
  });

  it("a [fail] prompt ends idle with no new artifact and an assistant message", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    expect((await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "break it [fail]" } })).status).toBe(200);
    const idle = await waitUntilIdle(emu, editorId);
    expect(idle["activeArtifactId"]).toBe(artifactId);
    expect(emu.control.getDesign(editorId).versions).toHaveLength(1);
    const page = messagesPageSchema.parse((await call(emu, "GET", `/v3/designs/${editorId}/messages`)).body);
    expect(page.items[0]?.role).toBe("assistant");
    expect(messageText(page.items[0]!)).toMatch(/failed/);
  });

  it("answers 409 to a prompt while generating, and takes no credit for it", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    emu.control.startGeneration(editorId, "first");
    const second = await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "second" } });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: "Design is already generating" });
    expect(emu.control.getCredits(KEY_A)).toBe(1000);
    expect(emu.control.finishGeneration(editorId).artifactId).not.toBeNull();
    expect((await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "second" } })).status).toBe(200);
  });

  it("answers 402 when the key's credits run out; reads keep working; other keys unaffected", async () => {
    const emu = await start({ credits: 1 });
    const { editorId } = await createBlank(emu);
    expect((await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "one" } })).status).toBe(200);
    await waitUntilIdle(emu, editorId);
    const out = await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "two" } });
    expect(out.status).toBe(402);
    expect(json(out)["error"]).toMatch(/credits/i);
    const create = await call(emu, "POST", "/v3/designs", { body: { prompt: "new" } });
    expect(create.status).toBe(402);
    expect(emu.control.getDesign(editorId).versions).toHaveLength(2);
    expect((await call(emu, "GET", `/v3/designs/${editorId}/active-artifact`)).status).toBe(200);
    expect((await call(emu, "POST", "/v3/designs", { body: { prompt: "b" }, key: KEY_B })).status).toBe(200);
    emu.control.setCredits(KEY_A, 5);
    expect((await call(emu, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "three" } })).status).toBe(200);
  });

  it("control-driven generations wait for finishGeneration", async () => {
    const emu = await start({ generationMs: 10 });
    const { editorId } = await createBlank(emu);
    emu.control.startGeneration(editorId, "Manual run");
    // Another request's round trip is the event to await: the run must outlive it.
    await call(emu, "GET", "/v3/health");
    expect(json(await call(emu, "GET", `/v3/designs/${editorId}/status`))["isGenerating"]).toBe(true);
    const { artifactId } = emu.control.finishGeneration(editorId);
    expect(emu.control.activeArtifactId(editorId)).toBe(artifactId);
    expect(() => emu.control.finishGeneration(editorId)).toThrow(/not generating/);
  });

  it("builds on the artifact that is active when the run finishes", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    emu.control.startGeneration(editorId, "Add nav");
    const picked = emu.control.setFiles(editorId, { "App.tsx": "custom app without region" }, { newArtifact: true });
    emu.control.finishGeneration(editorId);
    const files = emu.control.getFiles(editorId);
    expect(files["App.tsx"]).toBe("custom app without region");
    expect(Object.keys(files)).toEqual(["App.tsx", "components/AddNav.tsx"]);
    expect(
      emu.control
        .getDesign(editorId)
        .versions.map((v) => v.artifactId)
        .slice(0, 2),
    ).toEqual([artifactId, picked]);
  });

  it("pages messages 10 at a time, newest first", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu);
    for (let i = 0; i < 6; i += 1) {
      emu.control.startGeneration(editorId, `step ${i}`);
      emu.control.finishGeneration(editorId);
    }
    const first = messagesPageSchema.parse((await call(emu, "GET", `/v3/designs/${editorId}/messages`)).body);
    const second = messagesPageSchema.parse((await call(emu, "GET", `/v3/designs/${editorId}/messages?skip=10`)).body);
    expect(first.items).toHaveLength(10);
    expect(first.hasMore).toBe(true);
    expect(messageText(first.items[0]!)).toBe("Updated App.tsx and added components/Step5.tsx");
    expect(second.items.map((m) => messageText(m))).toEqual(["Updated App.tsx and added components/Step0.tsx", "step 0"]);
    expect(second.hasMore).toBe(false);
  });
});
