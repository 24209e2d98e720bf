/**
 * One folder rule for every command: inside a mapped folder, that folder; elsewhere,
 * all of them, and publish of several designs only when asked. Input as people type it.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY, readText, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let a: string;
let b: string;

beforeAll(async () => {
  world = await startWorld({ compileCheck: false });
  a = seedDesign(world, { "App.tsx": "export function App() { return null; }\n" }).editorId;
  b = seedDesign(world, { "App.tsx": "export function App() { return 2; }\n" }).editorId;
  await world.writeSyncrc({
    designs: [
      { dir: "a", design: a },
      { dir: "b", design: b },
    ],
    pollIntervalSec: 0.05,
  });
  expect((await world.run(["pull"])).code).toBe(0);
});
afterAll(async () => {
  await world.close();
});

describe("the folder a command acts on", () => {
  it("publish inside a mapped folder publishes that design only", async () => {
    const activeB = world.emulator.control.activeArtifactId(b);
    const activeA = world.emulator.control.activeArtifactId(a);
    const r = await world.run(["publish", "--json"], { cwd: join(world.cwd, "a") });
    expect(r.code).toBe(0);
    const doc = world.readJson<{ designs: { dir: string }[] }>(r.stdout);
    expect(doc.designs.map((d) => d.dir)).toEqual(["a"]);
    // A publish makes a new active version: a's moved, b's did not.
    expect(world.emulator.control.activeArtifactId(a)).not.toBe(activeA);
    expect(world.emulator.control.activeArtifactId(b)).toBe(activeB);
  });

  it("publish outside the mapped folders, with several mapped, asks for folders or --all", async () => {
    const r = await world.run(["publish"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("2 designs are mapped here: name the folders to publish, or pass --all");
    expect(r.stderr).toContain("mpsync publish a b");
  });

  it("pull and status inside a folder act on that folder; outside, on all", async () => {
    await mkdir(join(world.cwd, "a", "src"), { recursive: true });
    const inside = world.readJson<{ designs: { dir: string }[] }>((await world.run(["status", "--json"], { cwd: join(world.cwd, "a", "src") })).stdout);
    expect(inside.designs.map((d) => d.dir)).toEqual(["a"]);
    const pulled = world.readJson<{ designs: { dir: string }[] }>((await world.run(["pull", "--json"], { cwd: join(world.cwd, "b") })).stdout);
    expect(pulled.designs.map((d) => d.dir)).toEqual(["b"]);
    const all = world.readJson<{ designs: { dir: string }[] }>((await world.run(["status", "--json"])).stdout);
    expect(all.designs.map((d) => d.dir)).toEqual(["a", "b"]);
  });
});

describe("publish where nothing is compile-checked", () => {
  it("says the service did not check, never that it compiled", async () => {
    await writeFile(join(world.cwd, "a", "App.tsx"), "export function App() { return <div>; }\n");
    expect((await world.run(["push", "a"])).code).toBe(0);
    const r = await world.run(["publish", "a"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("not compile-checked");
    expect(r.stdout).not.toContain("compiled,");
    expect(r.stdout).not.toMatch(/\d+ files compiled/);
  });
});

describe("input as people type it", () => {
  it("init trims a pasted --design, and refuses a design already mapped in this .syncrc", async () => {
    const c = seedDesign(world).editorId;
    const ok = await world.run(["init", "c", "--design", ` ${c}\n`]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(await readText(join(world.cwd, ".syncrc"))).designs).toContainEqual({ dir: "c", design: c });
    const again = await world.run(["init", "d", "--design", c]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`design ${c} is already mapped to c`);
    expect(again.stderr).toContain("one folder per design");
  });

  it("init -c PATH creates the named config when it is not there yet", async () => {
    const e = seedDesign(world).editorId;
    await mkdir(join(world.cwd, "other"), { recursive: true });
    const r = await world.run(["-c", "other/.syncrc", "init", "other/e", "--design", e]);
    expect(r.code).toBe(0);
    expect(JSON.parse(await readText(join(world.cwd, "other", ".syncrc"))).designs).toEqual([{ dir: "e", design: e }]);
  });

  it("a .syncrc that maps one design into several folders is warned about, with the reason", async () => {
    const shared = await startWorld();
    try {
      const { editorId } = seedDesign(shared);
      await shared.writeSyncrc({
        designs: [
          { dir: "x", design: editorId },
          { dir: "y", design: editorId },
        ],
        pollIntervalSec: 0.05,
      });
      const r = await shared.run(["pull"]);
      expect(r.stderr).toContain(`design ${editorId} is mapped into 2 folders (x, y): their pushes overwrite each other`);
    } finally {
      await shared.close();
    }
  });

  it("login with a wrong key blames the key given, not a stored one; --with-token reads stdin", async () => {
    const wrong = await world.run(["login"], { env: { MP_API_KEY: undefined }, input: "not-the-key\n" });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain("refused the key you gave: nothing was saved");
    expect(wrong.stderr).not.toContain("the key stored");
    const ok = await world.run(["login", "--with-token"], { env: { MP_API_KEY: undefined }, input: `${KEY}\n` });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("saved to");
  });
});

describe("a folder is named by its path from where the command runs", () => {
  // .syncrc maps "site" and "fresh" (relative to the config's folder); the commands run in a
  // subfolder beside them, where both are "../site" and "../fresh".
  let w: E2eWorld;
  let sub: string;
  let site: string;
  beforeAll(async () => {
    w = await startWorld({ compileCheck: false });
    site = seedDesign(w).editorId;
    await w.writeSyncrc({
      designs: [
        { dir: "site", design: site },
        { dir: "fresh", design: seedDesign(w).editorId },
      ],
      pollIntervalSec: 0.05,
    });
    sub = join(w.cwd, "sub");
    await mkdir(sub, { recursive: true });
    expect((await w.run(["pull", "site"])).code).toBe(0);
  });
  afterAll(async () => {
    await w.close();
  });

  it("push of a folder never synced: the line and its hint name it so it can be pasted back", async () => {
    const r = await w.run(["push", "../fresh"], { cwd: sub });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("../fresh was never synced: nothing was pushed");
    expect(r.stderr).toContain("run mpsync pull ../fresh first");
    expect(r.stderr).not.toMatch(/(^|[^./])fresh was never synced/);
  });

  it("doctor and a folder that maps nothing name folders from here", async () => {
    const doctor = await w.run(["doctor"], { cwd: sub });
    expect(doctor.stdout).toContain("folder ../site:");
    expect(doctor.stdout).toContain("lock ../site:");
    expect(doctor.stdout).toContain("state ../site:");
    expect(doctor.stdout).not.toMatch(/(folder|lock|state) site:/);
    const wrong = await w.run(["pull", "nowhere"], { cwd: sub });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("mapped: ../site, ../fresh");
  });

  it("init names the folder it mapped from here; --json keeps dir as .syncrc has it", async () => {
    const other = seedDesign(w).editorId;
    const r = await w.run(["init", "../other", "--design", other], { cwd: sub });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`mapped ../other to ${other}`);
    const again = await w.run(["init", "../other2", "--design", other, "--json"], { cwd: sub });
    expect(again.code).toBe(2);
    expect(w.readJson<{ error: { message: string } }>(again.stdout).error.message).toContain(`is already mapped to ../other in`);
    const json = await w.run(["status", "../other", "--json"], { cwd: sub });
    expect(w.readJson<{ designs: { dir: string }[] }>(json.stdout).designs.map((d) => d.dir)).toEqual(["other"]);
  });

  it("watch whose folder stops says so with the folder's path from here, to its last line", async () => {
    w.emulator.control.failNext({ method: "GET", path: new RegExp(`/designs/${site}/status$`) }, { status: 404 }, 1000);
    const r = await w.run(["watch", "../site"], { cwd: sub });
    expect(r.code).toBe(1);
    const all = r.stdout + r.stderr;
    expect(all).toContain("sync of ../site stopped");
    expect(all).toContain("watch stopped: no folder left to sync (../site: NOT_FOUND)");
    expect(all).not.toMatch(/sync of site stopped|\(site: /);
  });
});
