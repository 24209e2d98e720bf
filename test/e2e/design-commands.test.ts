/** create, prompt (refusals, credits, budget, --wait polling), versions, checkout, snapshot, publish, look-ups. */
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/scheduling/key-hash.js";
import { until } from "../support/wait.js";
import { KEY, readText, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

const POLL_INTERVAL_SEC = 0.2;
let world: E2eWorld;
let editorId: string;
let firstApp: string;

beforeAll(async () => {
  // Long enough for several polls at POLL_INTERVAL_SEC during one generation.
  world = await startWorld({ generationMs: 1200 });
  editorId = seedDesign(world).editorId;
  firstApp = world.emulator.control.getFiles(editorId)["App.tsx"] ?? "";
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: POLL_INTERVAL_SEC });
  const pulled = await world.run(["pull"]);
  expect(pulled.code).toBe(0);
});
afterAll(async () => {
  await world.close();
});

/**
 * Until the design's last status poll (any process's, in the poll ledger) is older than the
 * poll interval: before that a command takes the recorded status as still true
 * (src/app/design-status.ts), so a generation that just ended still reads "generating".
 */
async function pollDue(): Promise<void> {
  const ledger = join(world.env["XDG_STATE_HOME"] ?? "", "mpsync", "polls.json");
  await until(async () => {
    const last = (JSON.parse(await readFile(ledger, "utf8").catch(() => "{}")) as Record<string, number>)[editorId];
    return last === undefined || Date.now() - last > POLL_INTERVAL_SEC * 1000;
  });
}

describe("create", () => {
  it("prints the editorId and URLs; --design-system takes a name or a ds- id", async () => {
    const control = world.emulator.control;
    const systems = await world.run(["design-systems", "--json"]);
    expect(systems.code).toBe(0);
    const list = world.readJson<{ designSystems: { id: string; name: string }[] }>(systems.stdout).designSystems;
    const ds = list[0];
    if (ds === undefined) throw new Error("the emulator lists no design systems");

    const a = await world.run(["create", "--name", "A", "--design-system", ds.name.toUpperCase(), "--json"]);
    expect(a.code).toBe(0);
    const docA = world.readJson<{ editorId: string; editorUrl: string; previewUrl: string | null; generating: boolean }>(a.stdout);
    expect(docA.editorUrl).toContain(docA.editorId);
    expect(docA.generating).toBe(false);
    expect(control.getDesign(docA.editorId).designSystemId).toBe(ds.id);

    const b = await world.run(["create", "--design-system", ds.id]);
    expect(b.code).toBe(0);
    const id = /created design (\S+)/.exec(b.stdout)?.[1] ?? "";
    expect(control.getDesign(id).designSystemId).toBe(ds.id);
    expect(b.stdout).toContain("editor:");
  });

  it("--prompt --wait waits for the generation", async () => {
    const r = await world.run(["create", "--prompt", "a pricing page", "--wait", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ editorId: string; generating: boolean }>(r.stdout);
    expect(doc.generating).toBe(false);
    expect(world.emulator.control.getDesign(doc.editorId).isGenerating).toBe(false);
  });
});

describe("prompt", () => {
  it("is refused while the design is generating (exit 1, GENERATING)", async () => {
    world.emulator.control.startGeneration(editorId, "someone else's prompt");
    try {
      const r = await world.run(["prompt", "make it blue", "--json"]);
      expect(r.code).toBe(1);
      expect(world.readJson<{ error: { code: string } }>(r.stdout).error.code).toBe("GENERATING");
    } finally {
      world.emulator.control.finishGeneration(editorId);
    }
    // The next test's prompt must see the generation's end, not this test's recorded status.
    await pollDue();
  });

  // Poll spacing is the scheduler's promise, proven with an injected clock in
  // test/scheduling/poll-scheduler.test.ts; comparing wall-clock gaps here failed under load.
  it("--wait polls until idle, pulls, and prints the reply", async () => {
    world.emulator.control.resetRequestLog();
    const r = await world.run(["prompt", "make the header sticky", "--wait", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ newVersion: boolean; reply?: string; pull: { pulled: string[] } }>(r.stdout);
    expect(doc.newVersion).toBe(true);
    expect(doc.reply).toBeTruthy();
    expect(doc.pull.pulled).toContain("App.tsx");
    expect(await readText(join(world.cwd, "site", "App.tsx"))).toBe(world.emulator.control.getFiles(editorId)["App.tsx"]);

    const polls = world.emulator.control.requests().filter((e) => e.method === "GET" && e.path === `/v3/designs/${editorId}/status`);
    expect(polls.length).toBeGreaterThanOrEqual(2);
  });

  it("says so when a generation ends without a new version (exit 1)", async () => {
    const r = await world.run(["prompt", "[fail] impossible", "--wait"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("generation ended without a new version");
  });

  it("records each generation in the local budget and refuses past it", async () => {
    const ledger = join(world.env["XDG_STATE_HOME"] ?? "", "mpsync", "generations.json");
    const recorded = JSON.parse(await readFile(ledger, "utf8")) as Record<string, number[]>;
    const hash = hashApiKey(KEY);
    expect(recorded[hash]?.length).toBeGreaterThanOrEqual(3);
    const full = { [hash]: Array.from({ length: 1000 }, () => Date.now()) };
    await mkdir(join(ledger, ".."), { recursive: true });
    await writeFile(ledger, JSON.stringify(full));
    try {
      const r = await world.run(["prompt", "one more", "--json"]);
      expect(r.code).toBe(1);
      expect(world.readJson<{ error: { code: string; message: string } }>(r.stdout).error).toMatchObject({ code: "GENERATION_BUDGET" });
    } finally {
      await writeFile(ledger, JSON.stringify(recorded));
    }
  });

  it("without --wait says what pulls the result: no watch runs, so mpsync pull", async () => {
    // A prompt whose generation fails adds no version (later tests count versions).
    const r = await world.run(["prompt", "[fail] make the footer darker"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("when it is ready: mpsync pull");
    expect(r.stdout).not.toContain("watch pulls");
    world.emulator.control.finishGeneration(editorId);
  });

  it("exits 4 when out of credits", async () => {
    world.emulator.control.setCredits(KEY, 0);
    try {
      const r = await world.run(["prompt", "make it pop"]);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain("402");
    } finally {
      world.emulator.control.setCredits(KEY, 1000);
    }
  });
});

describe("versions, checkout, snapshot", () => {
  it("versions lists newest first with the active one marked", async () => {
    const r = await world.run(["versions", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ versions: { versionLabel: string; artifactId: string }[]; hasMore: boolean; active: string }>(r.stdout);
    expect(doc.hasMore).toBe(false);
    const expected = world.emulator.control
      .getDesign(editorId)
      .versions.map((v) => v.versionLabel)
      .reverse();
    expect(doc.versions.map((v) => v.versionLabel)).toEqual(expected);
    expect(doc.active).toBe(world.emulator.control.activeArtifactId(editorId));
    const human = await world.run(["versions", "--all"]);
    expect(human.stdout).toMatch(new RegExp(`^\\* ${expected[0] ?? ""} +just now +make the header sticky$`, "m"));
  });

  it("checkout vN clones it into a new active version and pulls it", async () => {
    const next = `v${world.emulator.control.getDesign(editorId).versions.length + 1}`;
    const r = await world.run(["checkout", "v1", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ versionLabel: string; from: { versionLabel: string }; pull: { pulled: string[] } }>(r.stdout);
    expect(doc).toMatchObject({ versionLabel: next, from: { versionLabel: "v1" } });
    expect(await readText(join(world.cwd, "site", "App.tsx"))).toBe(firstApp);
    const versions = world.emulator.control.getDesign(editorId).versions;
    expect(versions.at(-1)?.title).toBe("checkout of v1");
  });

  it("checkout of an unknown version fails with the range that exists", async () => {
    const r = await world.run(["checkout", "v99"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("v99 not found");
    // Not a vN: taken as an artifactId; the service does not know it, and the message says the
    // version is what is missing, not the design (which exists).
    const bogus = await world.run(["checkout", "bogus"]);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toContain('no version "bogus" in design');
    expect(bogus.stderr).not.toContain("check the design id");
  });

  it("snapshot names a clone of the active version", async () => {
    const next = `v${world.emulator.control.getDesign(editorId).versions.length + 1}`;
    const r = await world.run(["snapshot", "before the redesign"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`saved ${next} "before the redesign"`);
  });
});

describe("publish and look-ups", () => {
  it("publishes the active artifact, and prints the compiler message on 422 (exit 1)", async () => {
    const ok = await world.run(["publish", "--json"]);
    expect(ok.code).toBe(0);
    expect(world.readJson<{ designs: { compiledFiles: number }[] }>(ok.stdout).designs[0]?.compiledFiles).toBeGreaterThan(0);
    expect(world.emulator.control.getDesign(editorId).previewUrl).toMatch(/^https:\/\/project-/);
    world.emulator.control.editFile(editorId, "App.tsx", "export default function App( {\n");
    const bad = await world.run(["publish"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("does not compile");
    expect(bad.stdout).toContain("App.tsx:");
  });

  it("resolve-url prints the editorId", async () => {
    const r = await world.run(["resolve-url", world.emulator.control.getDesign(editorId).editorUrl]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(editorId);
  });
});
