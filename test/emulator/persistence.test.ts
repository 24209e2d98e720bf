import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { designSystemsResponseSchema } from "../../src/api/schemas.js";
import { startEmulator } from "../../src/emulator/index.js";
import { call, createBlank, json, KEY_A, KEY_B, useEmulators, waitUntilIdle } from "./helpers.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mpsync-emulator-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});
// Registered after the cleanup so its afterEach (closing, hence saving) runs before the folder goes.
const start = useEmulators();

async function waitForFile(file: string, timeoutMs = 3000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await readFile(file, "utf8");
    } catch {
      if (Date.now() > deadline) throw new Error(`${file} never written`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

describe("emulator: persistence", () => {
  it("round-trips designs, versions, messages, publish state, credits and design systems", async () => {
    const dataFile = join(dir, "nested", "emulator.json");
    const first = await startEmulator({ dataFile, generationMs: 50 });
    const { editorId, artifactId } = await createBlank(first, KEY_A, "Kept");
    await call(first, "PATCH", `/v3/designs/${editorId}/artifacts/${artifactId}/files`, { body: { files: [{ fileName: "__proto__", code: "odd" }] } });
    await call(first, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "Add a gallery" } });
    await waitUntilIdle(first, editorId);
    expect(json(await call(first, "POST", `/v3/designs/${editorId}/artifacts/${artifactId}/publish`))).toHaveProperty("compiledFiles");
    const systems = designSystemsResponseSchema.parse((await call(first, "GET", "/v3/design-systems")).body);
    const filesBefore = first.control.getFiles(editorId);
    const snapshotBefore = first.control.getDesign(editorId);
    await first.close();

    const text = await readFile(dataFile, "utf8");
    expect(text).not.toContain(KEY_A);
    const second = await start({ dataFile });
    expect(second.control.getFiles(editorId)).toEqual(filesBefore);
    expect(second.control.getFiles(editorId, artifactId)["__proto__"]).toBe("odd");
    expect(second.control.getDesign(editorId)).toEqual(snapshotBefore);
    expect(second.control.getCredits(KEY_A)).toBe(999);
    expect(json(await call(second, "GET", `/v3/designs/${editorId}/messages`))["items"]).toHaveLength(2);
    expect((await call(second, "GET", "/v3/design-systems")).body).toEqual(systems);
    const resolved = await call(second, "POST", "/v3/designs/resolve-url", { body: { url: second.control.getDesign(editorId).previewUrl } });
    expect(resolved.body).toEqual({ editorId });
    expect((await call(second, "GET", `/v3/designs/${editorId}/status`, { key: KEY_B })).status).toBe(403);
  });

  it("saves shortly after a change, without waiting for close", async () => {
    const dataFile = join(dir, "data.json");
    const emu = await start({ dataFile });
    const { editorId } = await createBlank(emu);
    const saved = JSON.parse(await waitForFile(dataFile)) as { designs: Array<{ editorId: string }> };
    expect(saved.designs.map((d) => d.editorId)).toEqual([editorId]);
  });

  it("finishes a generation that was in flight when the emulator stopped", async () => {
    const dataFile = join(dir, "data.json");
    const first = await startEmulator({ dataFile, generationMs: 60_000 });
    const { editorId } = await createBlank(first);
    await call(first, "POST", `/v3/designs/${editorId}/prompts`, { body: { prompt: "Resume me" } });
    await first.close();
    // The resumed generation ends when the test says (finishGeneration): no race with a timer.
    const second = await start({ dataFile, generationMs: 600_000 });
    expect(second.control.getDesign(editorId).isGenerating).toBe(true);
    second.control.finishGeneration(editorId);
    const idle = await waitUntilIdle(second, editorId);
    expect(idle["availableFiles"]).toContain("components/ResumeMe.tsx");
  });

  it("refuses to start on a corrupt data file and leaves it untouched", async () => {
    const dataFile = join(dir, "data.json");
    await writeFile(dataFile, "{ corrupt");
    await expect(startEmulator({ dataFile })).rejects.toThrow(/data file .* is not valid/);
    expect(await readFile(dataFile, "utf8")).toBe("{ corrupt");
  });
});
