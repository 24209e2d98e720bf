/**
 * The controls people expect, through the built CLI: `sync`, `pause`, `resume`,
 * `resolve` and `pull --force`, against a running `watch` (its owner-only control socket) and
 * without one.
 */
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnWatch, type DaemonProcess } from "../daemon/daemon-process.js";
import { seedDesign, startWorld, type E2eWorld } from "./helpers.js";
import { CONTROL_PROTOCOL } from "../../src/daemon/control-channel.js";
import { schemaMismatch } from "../support/json-output.js";
import { subscribe } from "../support/control-subscriber.js";
import { landedOf } from "../support/folder-state.js";
import { until } from "../support/wait.js";

const APP = "export function App() {\n  return <h1>Hello</h1>;\n}\n";

let world: E2eWorld;
let editorId: string;
const site = (...p: string[]): string => join(world.cwd, "site", ...p);
const local = (name: string): Promise<string> => readFile(site(name), "utf8");
const remote = (name: string): string | undefined => world.emulator.control.getFiles(editorId)[name];

beforeAll(async () => {
  world = await startWorld();
  editorId = seedDesign(world, { "App.tsx": APP, "index.css": "body {}\n", "lib.ts": "export const lib = 1;\n" }).editorId;
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05, remoteCheckSec: 3600, debounceMs: 50 });
  expect((await world.run(["pull"])).code).toBe(0);
});
afterAll(async () => {
  await world.close();
});

describe("without a daemon", () => {
  it("sync pulls and pushes now, in one go", async () => {
    await writeFile(site("lib.ts"), "export const lib = 2;\n");
    world.emulator.control.editFile(editorId, "index.css", "body { margin: 0 }\n");
    const r = await world.run(["sync", "--json"]);
    expect(r.code).toBe(0);
    const doc = world.readJson<{ designs: { by: string; pushed: string[]; pulled: string[] }[] }>(r.stdout);
    expect(doc.designs[0]).toMatchObject({ by: "here", pushed: ["lib.ts"], pulled: ["index.css"] });
    expect(remote("lib.ts")).toBe("export const lib = 2;\n");
    expect(await local("index.css")).toBe("body { margin: 0 }\n");
  });

  it("pause is kept in .mpsync, shown by status, refuses sync until resume", async () => {
    const paused = await world.run(["pause"]);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain("site paused: no daemon runs now");
    const status = await world.run(["status", "--json"]);
    expect(world.readJson<{ designs: { paused?: { by: string } }[] }>(status.stdout).designs[0]?.paused?.by).toBe("mpsync pause");
    expect((await world.run(["status"])).stdout).toContain("nothing is synced until mpsync resume");
    const refused = await world.run(["sync"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("site is paused: run mpsync resume first");
    const resumed = await world.run(["resume"]);
    expect(resumed.stdout).toContain("site resumed");
    expect(world.readJson<{ designs: { paused?: unknown }[] }>((await world.run(["status", "--json"])).stdout).designs[0]?.paused).toBeUndefined();
  });
});

describe("against a running watch", () => {
  let d: DaemonProcess;
  beforeAll(async () => {
    d = spawnWatch(world.cwd, world.env);
    await d.waitFor((e) => e.event === "ready");
  });
  afterAll(async () => {
    d.child.kill("SIGTERM");
    await d.exited;
  });

  it("listens on an owner-only socket under .mpsync", async () => {
    const sock = await stat(site(".mpsync", "control.sock"));
    expect(sock.isSocket()).toBe(true);
    expect(sock.mode & 0o777).toBe(0o600);
    expect((await stat(site(".mpsync"))).mode & 0o777).toBe(0o700);
  });

  it("subscribe streams the folder's events (as watch --json prints them) with its state word", async () => {
    const feed = subscribe(site());
    try {
      expect(await feed.next()).toMatchObject({ ok: true, protocol: CONTROL_PROTOCOL, state: "synced", label: "synced" });
      expect((await world.run(["pause"])).code).toBe(0);
      const paused = await feed.nextWith((l) => l.event !== undefined);
      expect(paused).toMatchObject({ state: "paused", event: { event: "notice", code: "PAUSED" } });
      expect(schemaMismatch(["event"], paused.event)).toBeUndefined();
      expect((await world.run(["resume"])).code).toBe(0);
      const resumed = await feed.nextWith((l) => l.event !== undefined);
      expect(resumed).toMatchObject({ state: "synced", event: { event: "notice", code: "RESUMED" } });
      await writeFile(site("lib.ts"), "export const lib = 'streamed';\n");
      const pushed = await feed.nextWith((l) => l.event?.["event"] === "pushed");
      expect(pushed).toMatchObject({ state: "synced", event: { files: ["lib.ts"] } });
      expect(schemaMismatch(["event"], pushed.event)).toBeUndefined();
      // The tests after this one read lib.ts as the first test left it.
      await writeFile(site("lib.ts"), "export const lib = 2;\n");
      await feed.nextWith((l) => l.event?.["event"] === "pushed");
    } finally {
      feed.close();
    }
  });

  it("a pull or push that finds the folder held by watch points at the controls that reach it", async () => {
    const r = await world.run(["push"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("a running watch syncs it already: mpsync sync makes it sync now");
  });

  it("sync makes the daemon run a full cycle now and waits for what it did", async () => {
    // A file this folder did not push lately (a remote edit right after our push is taken for a race).
    // The last push's confirming read (past its race window) would find the edit on its own first.
    await until(async () => (await landedOf(site(), "lib.ts"))?.settled === true, 20_000, "the push of lib.ts confirmed");
    world.emulator.control.editFile(editorId, "index.css", "body { margin: 2px }\n");
    const r = await world.run(["sync"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("site synced by the running daemon");
    expect(r.stdout).toContain("index.css pulled");
    expect(await local("index.css")).toBe("body { margin: 2px }\n");
  });

  it("names the folder by its path from where the command runs, whether the daemon or the command answers", async () => {
    const deeper = join(world.cwd, "deeper");
    await mkdir(deeper, { recursive: true });
    const since = d.events.length;
    const paused = await world.run(["pause"], { cwd: deeper });
    expect(paused.stdout).toContain("../site paused: nothing syncs until mpsync resume, told the running daemon");
    await d.waitFor((e) => e.event === "notice" && e.code === "PAUSED", { since });
    expect((await world.run(["status"], { cwd: deeper })).stdout).toMatch(/^\.\.\/site {2}/);
    expect((await world.run(["status"], { cwd: site() })).stdout).toMatch(/^\. {2}/);
    const resumed = await world.run(["resume"], { cwd: deeper });
    expect(resumed.stdout).toContain("../site resumed: syncing what changed meanwhile, told the running daemon");
    await d.waitFor((e) => e.event === "notice" && e.code === "RESUMED", { since });
  });

  it("pause holds the folder in the daemon, resume sends what waited", async () => {
    const since = d.events.length;
    const paused = await world.run(["pause"]);
    expect(paused.stdout).toContain("site paused: nothing syncs until mpsync resume, told the running daemon");
    await d.waitFor((e) => e.event === "notice" && e.code === "PAUSED", { since });
    await writeFile(site("index.css"), "body { margin: 1px }\n");
    const refused = await world.run(["sync"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("site is paused: run mpsync resume first");
    const status = await world.run(["status"]);
    expect(status.stdout).toMatch(/site .*paused/);
    expect(status.stdout).toContain("local changes (1): index.css");
    expect(remote("index.css")).toBe("body { margin: 2px }\n");
    const resumed = await world.run(["resume"]);
    expect(resumed.stdout).toContain("site resumed: syncing what changed meanwhile, told the running daemon");
    await d.waitFor((e) => e.event === "pushed", { since });
    expect(remote("index.css")).toBe("body { margin: 1px }\n");
  });

  it("resolve --ours and --theirs pick a side of a conflict; the daemon pushes the pick", async () => {
    const since = d.events.length;
    await world.run(["pause"]);
    await writeFile(site("App.tsx"), APP.replace("Hello", "Hello from here"));
    world.emulator.control.editFile(editorId, "App.tsx", APP.replace("Hello", "Hello from the web"));
    await world.run(["resume"]);
    await d.waitFor((e) => e.event === "conflict", { since });
    expect(await local("App.tsx")).toContain("<<<<<<< local");
    expect((await world.run(["status"])).code).toBe(5);
    // Run inside the folder: the file is named from there (as typed), not from .syncrc's folder.
    const r = await world.run(["resolve", "App.tsx", "--ours"], { cwd: site() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("App.tsx: kept your side of the conflict");
    expect(r.stdout).not.toContain("site/App.tsx");
    expect(r.stdout).toContain("the running mpsync watch syncs it");
    expect(await local("App.tsx")).toBe(APP.replace("Hello", "Hello from here"));
    await d.waitFor((e) => e.event === "pushed", { since });
    expect(remote("App.tsx")).toBe(APP.replace("Hello", "Hello from here"));
    const none = await world.run(["resolve", "--all", "--theirs"]);
    expect(none.stdout).toContain("no file holds conflict markers");
  });

  it("pull --force, the advice of a halted folder, is handed to the daemon, which says the folder syncs again", async () => {
    const since = d.events.length;
    for (const name of ["App.tsx", "index.css", "lib.ts"]) await rm(site(name));
    await d.waitFor((e) => e.event === "halted", { since });
    const r = await world.run(["pull", "--force"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("pull --force handed to the running daemon");
    expect(r.stdout).toContain("halt cleared, it syncs again");
    expect(await local("lib.ts")).toBe("export const lib = 2;\n");
    await d.waitFor((e) => e.event === "notice" && e.code === "RESUMED" && String(e.message).includes("syncs again"), { since });
  });
});
