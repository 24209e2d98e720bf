/**
 * Guards a careful user counts on, on the built CLI: `pull` never sends, secrets
 * stay home, and the service cannot switch sync off with a `.syncignore`.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readText, seedDesign, usePulledSite, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let editorId: string;
const site = (...p: string[]): string => join(world.cwd, "site", ...p);
const patches = (): number => world.emulator.control.requests().filter((e) => e.method === "PATCH").length;

usePulledSite((w, id) => {
  world = w;
  editorId = id;
});

describe("pull only pulls", () => {
  it("a local edit and a new file are left for push, and said so; remote changes still come in", async () => {
    await writeFile(site("index.tsx"), "// my local edit\n");
    await writeFile(site("notes.txt"), "my notes\n");
    world.emulator.control.editFile(editorId, "index.css", "/* remote */\n");
    const before = patches();
    const r = await world.run(["pull"]);
    expect(r.code).toBe(0);
    expect(patches()).toBe(before);
    expect(r.stdout).not.toContain("↑");
    expect(r.stdout).toMatch(/index\.tsx .*waiting to be pushed/);
    expect(r.stdout).toMatch(/notes\.txt .*waiting to be pushed/);
    expect(await readText(site("index.css"))).toBe("/* remote */\n");
    expect(Object.keys(world.emulator.control.getFiles(editorId))).not.toContain("notes.txt");
    // push then sends them.
    expect((await world.run(["push"])).code).toBe(0);
    expect(world.emulator.control.getFiles(editorId)["index.tsx"]).toBe("// my local edit\n");
  });
});

describe("push only pushes", () => {
  it("on a folder never synced it writes nothing and says to pull first (exit 2)", async () => {
    const { mkdir, readdir: list } = await import("node:fs/promises");
    const fresh = seedDesign(world).editorId;
    await mkdir(join(world.cwd, "fresh"), { recursive: true });
    await writeFile(join(world.cwd, "fresh", "mine.ts"), "export const mine = 1;\n");
    const syncrc = {
      designs: [
        { dir: "site", design: editorId },
        { dir: "fresh", design: fresh },
      ],
      pollIntervalSec: 0.05,
    };
    await world.writeSyncrc(syncrc);
    try {
      const r = await world.run(["push", "fresh"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("fresh was never synced: nothing was pushed");
      expect((await list(join(world.cwd, "fresh"))).filter((n) => n !== ".mpsync")).toEqual(["mine.ts"]);
      expect(Object.keys(world.emulator.control.getFiles(fresh))).not.toContain("mine.ts");
    } finally {
      await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
    }
  });
});

describe("secrets stay home", () => {
  it("push --dry-run shows .env and a key as skipped, and push never sends them", async () => {
    await writeFile(site(".env"), "SECRET=abc\n");
    await writeFile(site("server.key"), "-----BEGIN PRIVATE KEY-----\n");
    const dry = await world.run(["push", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).not.toMatch(/\.env .*would push/);
    expect(dry.stdout).toContain(".env skipped: looks like a secret");
    expect(dry.stdout).toContain("server.key skipped: looks like a secret");
    expect((await world.run(["push"])).code).toBe(0);
    const remote = Object.keys(world.emulator.control.getFiles(editorId));
    expect(remote).not.toContain(".env");
    expect(remote).not.toContain("server.key");
  });
});

describe("the service cannot switch sync off", () => {
  it("a remote .syncignore is refused and reported, never written; local edits still go out", async () => {
    world.emulator.control.editFile(editorId, ".syncignore", "*\n");
    const pull = await world.run(["pull"]);
    expect(pull.stderr + pull.stdout).toContain(".syncignore");
    await expect(readText(site(".syncignore"))).rejects.toThrow();
    await writeFile(site("App.tsx"), "export function App() { return <p>still synced</p>; }\n");
    expect((await world.run(["push"])).code).toBe(0);
    expect(world.emulator.control.getFiles(editorId)["App.tsx"]).toContain("still synced");
  });
});

describe("state never escapes", () => {
  it("a .mpsync that is a symbolic link stops the folder with one clear line; nothing is written through it", async () => {
    const { mkdtemp, readdir: list, rename: move, symlink } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const target = await mkdtemp(join(tmpdir(), "mpsync-link-target-"));
    await move(site(".mpsync"), site(".mpsync.real"));
    await symlink(target, site(".mpsync"));
    try {
      const r = await world.run(["pull"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(".mpsync is a symbolic link");
      expect(r.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
      expect(await list(target)).toEqual([]);
    } finally {
      await rm(site(".mpsync"));
      await move(site(".mpsync.real"), site(".mpsync"));
    }
  });
});
