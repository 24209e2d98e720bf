/**
 * The first things a new user does, against an emulator that answers as the real service does
 * (docs/service-facts.md): a prompted design has no artifact while its first generation runs, the
 * chat history is `{ items: [{ role, content: [parts] }] }`, prompts take no images, and a
 * publish makes a new active version. Each spawns the built CLI.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnWatch } from "../daemon/daemon-process.js";
import { readText, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let slow: E2eWorld;

beforeAll(async () => {
  world = await startWorld({ generationMs: 300 });
  // Generations that end only when a test finishes them: "no version yet" without a race.
  slow = await startWorld({ generationMs: 600_000 });
});
afterAll(async () => {
  await world.close();
  await slow.close();
});

describe("a prompted design before its first version", () => {
  // The slow world's generation ends when the test finishes it, after two polls: on the loaded
  // machine a 300 ms generation may end before the CLI's first poll.
  it("create --prompt --wait (no .syncrc yet) waits at the loopback poll rate and reports the new version", { timeout: 90_000 }, async () => {
    const control = slow.emulator.control;
    control.resetRequestLog();
    const polls = () => control.requests().filter((e) => e.method === "GET" && /^\/v3\/designs\/[^/]+\/status$/.test(e.path));
    const running = slow.run(["create", "--prompt", "a pricing page", "--wait", "--json"]);
    // With the 60 s floor the second poll would come a minute after the first; at the loopback
    // default (1 s) it comes within seconds.
    await control.waitForRequest(() => polls().length >= 2, { includePast: true, timeoutMs: 45_000 });
    const editorId = /^\/v3\/designs\/([^/]+)\/status$/.exec(polls()[0]?.path ?? "")?.[1] ?? "";
    control.finishGeneration(editorId);
    const r = await running;
    expect(r.code).toBe(0);
    const doc = slow.readJson<{ editorId: string; generating: boolean; generated: boolean; activeArtifactId: string }>(r.stdout);
    expect(doc).toMatchObject({ editorId, generating: false, generated: true });
    expect(doc.activeArtifactId).toBe(control.activeArtifactId(doc.editorId));
  });

  it("create --prompt --wait whose first generation fails says there is nothing to pull (exit 1)", async () => {
    const r = await world.run(["create", "--prompt", "[fail] impossible", "--wait"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("first generation ended without a version");
  });

  it("init DIR --create --prompt maps and pulls the generated version; pull then has nothing to do", async () => {
    const r = await world.run(["init", "gen", "--create", "--prompt", "Add a pricing table", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ editorId: string }>(r.stdout);
    const remote = world.emulator.control.getFiles(doc.editorId);
    expect(Object.keys(remote)).toContain("components/AddAPricing.tsx");
    expect(await readText(join(world.cwd, "gen", "App.tsx"))).toBe(remote["App.tsx"]);
    const again = await world.run(["pull", "gen", "--json"]);
    expect(again.code).toBe(0);
    expect(world.readJson<{ designs: { pulled: string[] }[] }>(again.stdout).designs[0]?.pulled).toEqual([]);
  });

  it("pull and status before the first version: nothing to pull yet (exit 0), then the version arrives", async () => {
    const created = await slow.run(["create", "--prompt", "a landing page", "--json"]);
    expect(created.code).toBe(0);
    const { editorId } = slow.readJson<{ editorId: string }>(created.stdout);
    await mkdir(join(slow.cwd, "landing"), { recursive: true });
    await slow.writeSyncrc({ designs: [{ dir: "landing", design: editorId }], pollIntervalSec: 0.05 });

    const pull = await slow.run(["pull", "--json"]);
    expect(pull.code).toBe(0);
    const events = slow.readJson<{ events: { code?: string; message: string }[] }>(pull.stdout).events;
    expect(events).toEqual([expect.objectContaining({ code: "NO_ARTIFACT", message: expect.stringContaining("nothing to pull yet") })]);
    const status = await slow.run(["status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("no version yet");

    slow.emulator.control.finishGeneration(editorId);
    const after = await slow.run(["pull"]);
    expect(after.code).toBe(0);
    expect(await readText(join(slow.cwd, "landing", "App.tsx"))).toBe(slow.emulator.control.getFiles(editorId)["App.tsx"]);
  });
});

describe("prompt and chat history", () => {
  it("prompt --wait prints the assistant's reply from the chat history's text parts", async () => {
    const { editorId } = seedDesign(world);
    await world.writeSyncrc({ designs: [{ dir: "chat", design: editorId }], pollIntervalSec: 0.05 });
    expect((await world.run(["pull"])).code).toBe(0);
    const r = await world.run(["prompt", "Add a footer", "--wait"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("assistant: Updated App.tsx and added components/AddAFooter.tsx");
  });

  it("prompt --image is a usage error that points at create --image (exit 2, nothing sent)", async () => {
    world.emulator.control.resetRequestLog();
    const r = await world.run(["prompt", "like this", "--image", "https://example.com/a.png"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("create --prompt");
    expect(r.stderr).toContain("--image");
    expect(world.emulator.control.requests().filter((e) => e.path.endsWith("/prompts"))).toEqual([]);
  });
});

describe("design systems and publish", () => {
  it("design-systems lists the service's names with their ds- ids", async () => {
    const r = await world.run(["design-systems", "--json"]);
    expect(r.code).toBe(0);
    const list = world.readJson<{ designSystems: { id: string; name: string }[] }>(r.stdout).designSystems;
    expect(list.map((d) => d.name)).toEqual(["Base", "Wireframe", "Shadcn", "MUI", "Mantine", "Chakra"]);
    for (const d of list) expect(d.id).toMatch(/^ds-/);
  });

  it("publishOnPush in a running watch: one push, one publish, and the moved artifact pulls nothing back", async () => {
    const { editorId } = seedDesign(world);
    await mkdir(join(world.cwd, "pub"), { recursive: true });
    await world.writeSyncrc({ designs: [{ dir: "pub", design: editorId }], pollIntervalSec: 0.05, publishOnPush: true });
    expect((await world.run(["pull"])).code).toBe(0);
    world.emulator.control.resetRequestLog();
    const daemon = spawnWatch(world.cwd, world.env);
    try {
      await daemon.waitFor((e) => e.event === "ready");
      await writeFile(join(world.cwd, "pub", "index.css"), "body { color: red; }\n");
      await daemon.waitFor((e) => e.event === "published");
      const published = world.emulator.control.activeArtifactId(editorId);
      const statusPolls = (): number => world.emulator.control.requests().filter((e) => e.path.endsWith("/status")).length;
      const seen = statusPolls();
      await world.emulator.control.waitForRequest(() => statusPolls() >= seen + 5, { timeoutMs: 10_000 });
      expect(daemon.events.filter((e) => ["pulled", "conflict", "error", "halted"].includes(String(e.event)))).toEqual([]);
      expect(daemon.events.filter((e) => e.event === "published")).toHaveLength(1);
      expect(world.emulator.control.requests().filter((e) => e.method === "PATCH")).toHaveLength(1);
      expect(world.emulator.control.activeArtifactId(editorId)).toBe(published);
      expect(await readdir(join(world.cwd, "pub", ".mpsync", "backups")).catch(() => [])).toEqual([]);
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exited;
    }
  });
});
