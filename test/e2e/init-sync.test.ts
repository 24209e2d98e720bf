/** init (existing, URL, created, refusals, --force), then pull/push/status basics and doctor on a mapped folder. */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY, readText, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let editorId: string;
beforeAll(async () => {
  world = await startWorld();
  editorId = seedDesign(world).editorId;
});
afterAll(async () => {
  await world.close();
});

describe("init", () => {
  it("maps a folder in a new .syncrc (without the key) and pulls the design", async () => {
    const r = await world.run(["init", "web", "--design", editorId, "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ ok: boolean; dir: string; editorId: string; config: { path: string; created: boolean }; pull: { pulled: string[] } }>(
      r.stdout,
    );
    expect(doc).toMatchObject({ ok: true, dir: "web", editorId, config: { path: join(world.cwd, ".syncrc"), created: true } });
    expect(doc.pull.pulled.sort()).toEqual(["App.tsx", "index.css", "index.tsx", "tailwind.config.js"]);
    const syncrc = await readText(join(world.cwd, ".syncrc"));
    // The service it used is recorded (not the real one), with a poll that follows the emulator's
    // generations and a content check that brings a teammate's web edit within seconds.
    expect(JSON.parse(syncrc)).toEqual({
      $schema: "./.syncrc.schema.json",
      baseUrl: world.emulator.baseUrl,
      pollIntervalSec: 1,
      remoteCheckSec: 5,
      designs: [{ dir: "web", design: editorId }],
    });
    // A new shell without MPSYNC_BASE_URL still talks to the emulator.
    const later = await world.run(["status", "--json"], { env: { MPSYNC_BASE_URL: undefined } });
    expect(world.readJson<{ key: { serviceUrl: string } }>(later.stdout).key.serviceUrl).toBe(world.emulator.baseUrl);
    expect(later.code).toBe(0);
    // The schema lies beside it, so "$schema" resolves whatever the install (global, local, npx).
    const schema = JSON.parse(await readText(join(world.cwd, ".syncrc.schema.json"))) as { title: string; properties: Record<string, unknown> };
    expect(schema.title).toBe("mpsync .syncrc");
    expect(Object.keys(schema.properties)).toContain("designs");
    expect(syncrc).not.toContain(KEY);
    expect(await readText(join(world.cwd, "web", "App.tsx"))).toBe(world.emulator.control.getFiles(editorId)["App.tsx"]);
  });

  it("refuses a folder that is already mapped (exit 2)", async () => {
    const r = await world.run(["init", "web", "--design", editorId]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("already mapped");
  });

  it("refuses a non-empty folder without --force (exit 2)", async () => {
    await mkdir(join(world.cwd, "busy"), { recursive: true });
    await writeFile(join(world.cwd, "busy", "App.tsx"), "export default function App() { return <p>mine</p>; }\n");
    const r = await world.run(["init", "busy", "--design", editorId]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not empty");
    expect(r.stderr).toContain("--force");
  });

  it("with --force reconciles a non-empty folder: differing files become conflicts (exit 5), never overwritten", async () => {
    const other = seedDesign(world);
    const url = world.emulator.control.getDesign(other.editorId).editorUrl;
    const r = await world.run(["init", "busy", "--design", url, "--force", "--json"]);
    expect(r.code).toBe(5);
    const doc = world.readJson<{ editorId: string; pull: { conflicts: string[]; unresolvedConflicts: string[] } }>(r.stdout);
    expect(doc.editorId).toBe(other.editorId);
    expect(doc.pull.unresolvedConflicts).toContain("App.tsx");
    const text = await readText(join(world.cwd, "busy", "App.tsx"));
    expect(text).toContain("<<<<<<<");
    expect(text).toContain("<p>mine</p>");
  });

  it("takes the folder as --dir too, as the other commands do; two different folders are a usage error", async () => {
    // A world of its own: the suites below count this world's mappings.
    const own = await startWorld();
    try {
      const other = seedDesign(own);
      const r = await own.run(["init", "--dir", "by-flag", "--design", other.editorId, "--json"]);
      expect(r.code).toBe(0);
      expect(own.readJson<{ dir: string }>(r.stdout).dir).toBe("by-flag");
      expect(await readText(join(own.cwd, "by-flag", "App.tsx"))).toBe(own.emulator.control.getFiles(other.editorId)["App.tsx"]);
      const both = await own.run(["init", "one", "--dir", "two", "--design", other.editorId]);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain("two folders given (one and --dir two)");
    } finally {
      await own.close();
    }
  });

  it("--create makes a blank design, maps and pulls it", async () => {
    const r = await world.run(["init", "made", "--create", "--name", "Made here", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ editorId: string; design: { editorUrl: string }; config: { created: boolean } }>(r.stdout);
    expect(world.emulator.control.getDesign(doc.editorId).name).toBe("Made here");
    expect(doc.config.created).toBe(false);
    expect(JSON.parse(await readText(join(world.cwd, ".syncrc"))).designs).toHaveLength(3);
    expect(await readFile(join(world.cwd, "made", "index.tsx"), "utf8")).toBeTruthy();
  });
});

describe("pull, push, status", () => {
  it("pushes a local edit", async () => {
    await writeFile(join(world.cwd, "web", "App.tsx"), "export default function App() { return <h1>local</h1>; }\n");
    const r = await world.run(["push", "web", "--json"]);
    expect(r.code).toBe(0);
    expect(world.readJson<{ designs: { pushed: string[] }[] }>(r.stdout).designs[0]?.pushed).toEqual(["App.tsx"]);
    expect(world.emulator.control.getFiles(editorId)["App.tsx"]).toContain("<h1>local</h1>");
  });

  it("pulls a remote edit", async () => {
    world.emulator.control.editFile(editorId, "index.css", "body { color: red; }\n");
    const r = await world.run(["pull", "web"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("index.css");
    expect(await readText(join(world.cwd, "web", "index.css"))).toBe("body { color: red; }\n");
  });

  it("status reports local changes as JSON", async () => {
    await writeFile(join(world.cwd, "web", "index.tsx"), "// edited\n");
    const r = await world.run(["status", "web", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ ok: boolean; designs: { dir: string; editorId: string; localChanges: string[] }[] }>(r.stdout);
    expect(doc.designs[0]).toMatchObject({ dir: "web", editorId, localChanges: ["index.tsx"] });
  });

  it("doctor passes on a healthy setup, with folder, lock and state checks", async () => {
    await world.writeSyncrc({ designs: [{ dir: "web", design: editorId }] });
    const r = await world.run(["doctor", "--json"]);
    const doc = world.readJson<{ ok: boolean; checks: { name: string; ok: boolean; detail: string }[] }>(r.stdout);
    expect(doc.checks.filter((c) => !c.ok)).toEqual([]);
    expect(r.code).toBe(0);
    expect(doc.checks.map((c) => c.name)).toEqual([
      "config",
      "address",
      "key store",
      "api key",
      "service",
      "key valid",
      "clock",
      "folder web",
      "lock web",
      "state web",
      "backups web",
    ]);
    expect(doc.checks.find((c) => c.name === "lock web")?.detail).toBe("free");
    expect(doc.checks.find((c) => c.name === "backups web")?.detail).toMatch(
      /^\d+ folders?, \d+ files?, [\d.]+ (B|KiB|MiB); kept 30 days \(keepBackupsDays\)$/,
    );
  });
});
