import { describe, expect, it } from "vitest";
import { designSchema, designSystemsResponseSchema, readFilesResponseSchema, versionsPageSchema } from "../../src/api/schemas.js";
import { call, createBlank, json, KEY_A, KEY_B, useEmulators } from "./helpers.js";

const start = useEmulators();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("emulator: designs", () => {
  it("creates a blank design with the scaffold as v1", async () => {
    const emu = await start();
    const answer = await call(emu, "POST", "/v3/designs", { body: { name: "Landing page" } });
    expect(answer.status).toBe(200);
    const design = designSchema.parse(answer.body);
    expect(design.editorId).toMatch(/^[a-z0-9]{22}$/);
    expect(design.activeArtifactId).toMatch(UUID);
    expect(design.editorUrl).toBe(`https://www.magicpatterns.com/c/${design.editorId}`);
    expect(design.previewUrl).toBeNull();
    expect(design.availableFiles).toEqual(["App.tsx", "index.tsx", "index.css", "tailwind.config.js"]);
    const versions = versionsPageSchema.parse((await call(emu, "GET", `/v3/designs/${design.editorId}/versions`)).body);
    expect(versions.hasMore).toBe(false);
    expect(versions.versions).toHaveLength(1);
    expect(versions.versions[0]).toMatchObject({ artifactId: design.activeArtifactId, versionLabel: "v1", title: "Landing page" });
    expect(Math.abs((versions.versions[0]?.timeCreated ?? 0) - Date.now())).toBeLessThan(10_000);
  });

  it("titles v1 'Initial version' when no name is given and accepts an empty body", async () => {
    const emu = await start();
    const res = await fetch(`${emu.baseUrl}/v3/designs`, { method: "POST", headers: { "x-mp-api-key": KEY_A } });
    expect(res.status).toBe(200);
    const design = designSchema.parse(await res.json());
    expect(emu.control.getDesign(design.editorId)).toMatchObject({ name: "Untitled" });
    expect(emu.control.getDesign(design.editorId).versions[0]?.title).toBe("Initial version");
  });

  it("forks a template's active artifact; 404 unknown, 403 another owner's", async () => {
    const emu = await start();
    const template = emu.control.createDesign(KEY_A, { name: "T", files: { "App.tsx": "export default 1;", "x.css": "a{}" } });
    emu.control.setFiles(template.editorId, { "App.tsx": "export default 2;" }, { newArtifact: true, title: "second" });
    const fork = designSchema.parse(json(await call(emu, "POST", "/v3/designs", { body: { templateId: template.editorId } })));
    expect(fork.editorId).not.toBe(template.editorId);
    expect(fork.availableFiles).toEqual(["App.tsx"]);
    expect(emu.control.getFiles(fork.editorId)).toEqual({ "App.tsx": "export default 2;" });
    expect((await call(emu, "POST", "/v3/designs", { body: { templateId: "missing" } })).status).toBe(404);
    expect((await call(emu, "POST", "/v3/designs", { body: { templateId: template.editorId }, key: KEY_B })).status).toBe(403);
  });

  it("lists design systems and checks designSystemId / designSystem on create", async () => {
    const emu = await start();
    const list = designSystemsResponseSchema.parse((await call(emu, "GET", "/v3/design-systems")).body);
    expect(list.map((ds) => ds.name)).toEqual(["Base", "Wireframe", "Shadcn", "MUI", "Mantine", "Chakra"]);
    for (const ds of list) expect(ds.id).toMatch(/^ds-[0-9a-f-]{36}$/);
    const again = designSystemsResponseSchema.parse((await call(emu, "GET", "/v3/design-systems")).body);
    expect(again).toEqual(list);
    const first = list[0];
    if (first === undefined) throw new Error("no design system");
    const byId = designSchema.parse(json(await call(emu, "POST", "/v3/designs", { body: { designSystemId: first.id } })));
    expect(emu.control.getDesign(byId.editorId).designSystemId).toBe(first.id);
    const byName = designSchema.parse(json(await call(emu, "POST", "/v3/designs", { body: { designSystem: first.name.toUpperCase() } })));
    expect(emu.control.getDesign(byName.editorId).designSystemId).toBe(first.id);
    const badId = await call(emu, "POST", "/v3/designs", { body: { designSystemId: "ds-nope" } });
    expect(badId.status).toBe(400);
    expect(json(badId)["error"]).toMatch(/ds-nope/);
    expect((await call(emu, "POST", "/v3/designs", { body: { designSystem: "Nope UI" } })).status).toBe(400);
  });

  it("pages 45 versions newest first as 20/20/5 with hasMore", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu);
    let source = artifactId;
    for (let i = 2; i <= 45; i += 1) source = emu.control.setFiles(editorId, { "App.tsx": `// ${i}` }, { newArtifact: true, title: `t${i}` });
    const page = async (skip: number) => versionsPageSchema.parse((await call(emu, "GET", `/v3/designs/${editorId}/versions?skip=${skip}`)).body);
    const [p1, p2, p3, p4] = await Promise.all([page(0), page(20), page(40), page(45)]);
    expect(p1.versions.map((v) => v.versionLabel).slice(0, 3)).toEqual(["v45", "v44", "v43"]);
    expect(p1.versions[0]).toMatchObject({ artifactId: source, title: "t45" });
    expect([p1.versions.length, p2.versions.length, p3.versions.length]).toEqual([20, 20, 5]);
    expect([p1.hasMore, p2.hasMore, p3.hasMore]).toEqual([true, true, false]);
    expect(p3.versions.at(-1)).toMatchObject({ versionLabel: "v1", artifactId });
    expect(p4).toEqual({ versions: [], hasMore: false });
    const ids = new Set([...p1.versions, ...p2.versions, ...p3.versions].map((v) => v.artifactId));
    expect(ids.size).toBe(45);
  });

  it("resolves editor, published and canvas URLs", async () => {
    const emu = await start();
    const { editorId, artifactId } = await createBlank(emu, KEY_A, "Shop Front");
    const resolve = (url: string, key = KEY_A) => call(emu, "POST", "/v3/designs/resolve-url", { body: { url }, key });
    for (const url of [
      `https://www.magicpatterns.com/c/${editorId}`,
      `https://www.magicpatterns.com/c/${editorId}/screens?tab=1#top`,
      `https://magicpatterns.com/c/${editorId}`,
      `www.magicpatterns.com/c/${editorId}`,
      emu.control.getDesign(editorId).canvasUrl,
      `https://www.magicpatterns.com/s/${emu.control.getDesign(editorId).canvasId}?nodeIds=anything`,
    ]) {
      const answer = await resolve(url);
      expect(answer.status, url).toBe(200);
      expect(answer.body).toEqual({ editorId });
    }
    // A published URL exists only once the design was published.
    const published = await call(emu, "POST", `/v3/designs/${editorId}/artifacts/${artifactId}/publish`);
    expect(published.status).toBe(200);
    const previewUrl = String(emu.control.getDesign(editorId).previewUrl);
    expect(previewUrl).toMatch(/^https:\/\/project-shop-front-[a-z0-9]{8}\.magicpatterns\.app$/);
    expect((await resolve(`${previewUrl}/some/page?x=1`)).body).toEqual({ editorId });
    expect((await resolve(previewUrl, KEY_B)).status).toBe(403);
    expect((await resolve("https://www.magicpatterns.com/c/unknown")).status).toBe(404);
    expect((await resolve("https://project-unknown.magicpatterns.app")).status).toBe(404);
    expect((await resolve("https://example.com/c/abc")).status).toBe(404);
    const notUrl = await resolve("definitely not a url");
    expect(notUrl.status).toBe(400);
    expect(json(notUrl)["error"]).toMatch(/not a valid URL/);
  });

  it("resolves an unpublished preview slug to 404", async () => {
    const emu = await start();
    const { editorId } = await createBlank(emu, KEY_A, "Quiet");
    const slug = `quiet-${editorId.slice(0, 8)}`;
    const answer = await call(emu, "POST", "/v3/designs/resolve-url", { body: { url: `https://project-${slug}.magicpatterns.app` } });
    expect(answer.status).toBe(404);
  });

  it("keeps each key's designs separate", async () => {
    const emu = await start();
    const a = await createBlank(emu, KEY_A);
    const b = await createBlank(emu, KEY_B);
    const read = await call(emu, "POST", `/v3/designs/${b.editorId}/artifacts/${b.artifactId}/files/read`, {
      body: { fileNames: ["App.tsx"] },
      key: KEY_B,
    });
    expect(readFilesResponseSchema.parse(read.body).files).toHaveLength(1);
    expect((await call(emu, "GET", `/v3/designs/${a.editorId}/status`, { key: KEY_B })).status).toBe(403);
  });
});
