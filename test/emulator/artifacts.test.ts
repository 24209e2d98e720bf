import { describe, expect, it } from "vitest";
import {
  artifactSchema,
  designStatusSchema,
  publishResponseSchema,
  readFilesResponseSchema,
  writeFilesResponseSchema,
  toPublishResult,
} from "../../src/api/schemas.js";
import { call, createBlank, json, useEmulators } from "./helpers.js";

const start = useEmulators();

describe("emulator: artifacts and files", () => {
  it("PATCH creates new names, replaces named ones and leaves the others", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    const before = emu.control.getFiles(editorId);
    const answer = await call(emu, "PATCH", `/v3/designs/${editorId}/artifacts/${artifactId}/files`, {
      body: {
        files: [
          { fileName: "App.tsx", code: "export default function App() { return null; }\n" },
          { fileName: "components/Button.tsx", code: "export const Button = 1;\n" },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(writeFilesResponseSchema.parse(answer.body).files).toEqual(["App.tsx", "index.tsx", "index.css", "tailwind.config.js", "components/Button.tsx"]);
    const after = emu.control.getFiles(editorId);
    expect(after["App.tsx"]).toBe("export default function App() { return null; }\n");
    expect(after["components/Button.tsx"]).toBe("export const Button = 1;\n");
    expect(after["index.css"]).toBe(before["index.css"]);
    // PATCH writes in place: no new version.
    expect(emu.control.getDesign(editorId).versions).toHaveLength(1);
    expect(emu.control.activeArtifactId(editorId)).toBe(artifactId);
  });

  it("PATCH refuses hostile file names and writes nothing of that batch", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    for (const fileName of ["../evil.ts", "/etc/passwd", "a\\b.ts", "a//b.ts", "x\u0000.ts"]) {
      const answer = await call(emu, "PATCH", `/v3/designs/${editorId}/artifacts/${artifactId}/files`, {
        body: {
          files: [
            { fileName: "ok.ts", code: "" },
            { fileName, code: "" },
          ],
        },
      });
      expect(answer.status, JSON.stringify(fileName)).toBe(400);
      expect(json(answer)["error"]).toMatch(/Invalid file name/);
    }
    expect(emu.control.getFiles(editorId)["ok.ts"]).toBeUndefined();
  });

  it("reads files, leaving out names that do not exist", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    const answer = await call(emu, "POST", `/v3/designs/${editorId}/artifacts/${artifactId}/files/read`, {
      body: { fileNames: ["index.css", "missing.tsx", "App.tsx"] },
    });
    expect(answer.status).toBe(200);
    const files = readFilesResponseSchema.parse(answer.body).files;
    expect(files.map((f) => f.name)).toEqual(["index.css", "App.tsx"]);
    expect(files[1]?.content).toBe(emu.control.getFiles(editorId)["App.tsx"]);
  });

  it("clones an artifact into a new active one, listed as a new version", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    const answer = await call(emu, "POST", `/v3/designs/${editorId}/artifacts`, {
      body: { sourceArtifactId: artifactId, name: "Before refactor" },
    });
    expect(answer.status).toBe(200);
    const clone = artifactSchema.parse(answer.body);
    expect(clone.artifactId).not.toBe(artifactId);
    expect(clone.files).toHaveLength(4);
    const active = artifactSchema.parse((await call(emu, "GET", `/v3/designs/${editorId}/active-artifact`)).body);
    expect(active.artifactId).toBe(clone.artifactId);
    const status = designStatusSchema.parse((await call(emu, "GET", `/v3/designs/${editorId}/status`)).body);
    expect(status).toEqual({ isGenerating: false, activeArtifactId: clone.artifactId, availableFiles: clone.files });
    expect(emu.control.getDesign(editorId).versions.at(-1)).toMatchObject({ versionLabel: "v2", title: "Before refactor" });
    // The clone is a copy: editing it leaves the source alone.
    emu.control.editFile(editorId, "App.tsx", "changed");
    expect(emu.control.getFiles(editorId, artifactId)["App.tsx"]).not.toBe("changed");
  });

  it("refuses a clone whose source is not an artifact of the design", async () => {
    const emu = await start();
    const one = await createBlank(emu);
    const two = await createBlank(emu);
    const answer = await call(emu, "POST", `/v3/designs/${one.editorId}/artifacts`, {
      body: { sourceArtifactId: two.artifactId, name: "x" },
    });
    expect(answer.status).toBe(404);
    expect((await call(emu, "POST", `/v3/designs/${one.editorId}/artifacts`, { body: { sourceArtifactId: one.artifactId } })).status).toBe(400);
  });

  it("publishes a compiling artifact: previewUrl set, a new active version with the same files", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu, undefined, "My App");
    const answer = await call(emu, "POST", `/v3/designs/${editorId}/artifacts/${artifactId}/publish`);
    expect(answer.status).toBe(200);
    expect(toPublishResult(publishResponseSchema.parse(answer.body)).compiledFiles).toEqual(Object.keys(emu.control.getFiles(editorId, artifactId)));
    const design = emu.control.getDesign(editorId);
    expect(design.previewUrl).toMatch(/^https:\/\/project-my-app-[a-z0-9]{8}\.magicpatterns\.app$/);
    expect(design.activeArtifactId).not.toBe(artifactId);
    expect(design.versions.map((v) => v.versionLabel)).toEqual(["v1", "v2"]);
    expect(design.publishedArtifactId).toBe(design.activeArtifactId);
    expect(emu.control.getFiles(editorId)).toEqual(emu.control.getFiles(editorId, artifactId));
    const clone = await call(emu, "POST", "/v3/designs", { body: { templateId: editorId } });
    expect(json(clone)["previewUrl"]).toBeNull();
  });

  it("answers 422 with file:line:column and esbuild's message when compilation fails", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    emu.control.editFile(editorId, "components/Card.tsx", "export const a = 1;\nconst b = ;\n");
    emu.control.editFile(editorId, "README.md", "not compiled <div>");
    const answer = await call(emu, "POST", `/v3/designs/${editorId}/artifacts/${artifactId}/publish`);
    expect(answer.status).toBe(422);
    expect(json(answer)["error"]).toBe('Compilation failed: components/Card.tsx:2:11: Unexpected ";"');
    expect(emu.control.getDesign(editorId).previewUrl).toBeNull();
  });
});
