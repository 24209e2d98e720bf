import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildSyncrcJsonSchema } from "../../src/config/json-schema.js";
import { loadConfig } from "../../src/config/load-config.js";
import { syncrcSchema } from "../../src/config/schema.js";
import { parseSyncrcText } from "../../src/config/validate-syncrc.js";

const repoFile = (name: string): string => fileURLToPath(new URL(`../../${name}`, import.meta.url));

describe("syncrc.schema.json", () => {
  it("is up to date with the zod schema (regenerate with: npm run schema)", async () => {
    const committed = JSON.parse(await readFile(repoFile("syncrc.schema.json"), "utf8")) as unknown;
    expect(committed).toEqual(buildSyncrcJsonSchema());
  });

  it("describes every key, nested ones included", () => {
    const schema = buildSyncrcJsonSchema() as { properties: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> };
    expect(Object.keys(schema.properties)).toEqual(Object.keys(syncrcSchema.shape));
    for (const [key, property] of Object.entries(schema.properties)) {
      expect(property.description, key).toBeTruthy();
      for (const [inner, sub] of Object.entries(property.properties ?? {})) expect(sub.description, `${key}.${inner}`).toBeTruthy();
    }
    expect(schema).toMatchObject({ $id: expect.any(String), title: expect.any(String), required: ["designs"], additionalProperties: false });
  });
});

describe(".syncrc.example", () => {
  it("loads with loadConfig, as written and against the emulator", async () => {
    const path = repoFile(".syncrc.example");
    const asWritten = await loadConfig({ cwd: repoFile("."), configPath: path, env: {} });
    expect(asWritten.config.designs.length).toBeGreaterThan(0);
    const local = await loadConfig({ cwd: repoFile("."), configPath: path, env: { MPSYNC_BASE_URL: "http://127.0.0.1:4010/api" } });
    expect(local.config.baseUrl).toBe("http://127.0.0.1:4010/api");
  });

  it("sets every key of the schema, with a comment above each", async () => {
    const text = await readFile(repoFile(".syncrc.example"), "utf8");
    const raw = parseSyncrcText(text, ".syncrc.example") as Record<string, unknown>;
    expect(Object.keys(raw).sort()).toEqual(Object.keys(syncrcSchema.shape).sort());
    expect(Object.keys(raw["git"] as object).sort()).toEqual(["commitOnPull", "pauseDuringGitOps"]);
    const lines = text.split("\n");
    for (const key of [...Object.keys(syncrcSchema.shape), "pauseDuringGitOps", "commitOnPull"]) {
      const index = lines.findIndex((line) => line.trimStart().startsWith(`"${key}":`));
      expect(index, key).toBeGreaterThan(0);
      expect(lines[index - 1]?.trimStart().startsWith("//"), `comment above ${key}`).toBe(true);
    }
  });

  it("points editors at the schema", async () => {
    const raw = parseSyncrcText(await readFile(repoFile(".syncrc.example"), "utf8"), ".syncrc.example");
    expect(raw).toMatchObject({ $schema: "./syncrc.schema.json" });
  });
});

describe("json-output.schema.json", () => {
  it("is up to date with the zod schemas of every --json document (regenerate with: npm run schema)", async () => {
    const { buildJsonOutputSchema } = await import("../../src/app/json-documents.js");
    const committed = JSON.parse(await readFile(repoFile("json-output.schema.json"), "utf8")) as unknown;
    expect(committed).toEqual(buildJsonOutputSchema());
  });
});
