/**
 * Edits never hidden, status never untrue, on the built CLI: local
 * names the service would refuse are not pushed and are listed by status; a daemon pid is
 * shown only while that process lives; "in sync" only when it is.
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seedDesign, startWorld, usePulledSite, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let editorId: string;
const site = (...p: string[]): string => join(world.cwd, "site", ...p);

interface Status {
  designs: { notSynced: { path: string; reason: string; needsAttention: boolean }[]; daemon?: { pid: number }; staleLock?: { pid: number }; halted?: string }[];
}

usePulledSite(
  (w, id) => {
    world = w;
    editorId = id;
  },
  { "App.tsx": "export function App() { return null; }\n", lib: "export const lib = 1;\n" },
);

describe("local names the service would refuse", () => {
  it("a case-only rename, a file turned folder and an NFD name are not pushed, reported once, and listed by status", async () => {
    await rename(site("App.tsx"), site("app.tsx"));
    await rename(site("lib"), site("lib.old"));
    await mkdir(site("lib"));
    await writeFile(site("lib", "index.ts"), "export const lib = 2;\n");
    await writeFile(site("cafe\u0301.ts"), "export const cafe = 1;\n");
    const push = await world.run(["push"]);
    expect(push.stderr).toContain('local file "app.tsx" differs only by case');
    expect(push.stderr).toContain("rename it back to App.tsx, or rename it in the web editor");
    expect(push.stderr).toContain('local file "lib/index.ts" lies under "lib"');
    const remote = world.emulator.control.getFiles(editorId);
    expect(Object.keys(remote)).not.toContain("app.tsx");
    expect(Object.keys(remote)).not.toContain("lib/index.ts");
    expect(Object.keys(remote).filter((n) => n.normalize("NFC") !== n)).toEqual([]);

    const again = await world.run(["push"]);
    expect(again.stderr).not.toContain("differs only by case"); // reported once

    const status = await world.run(["status", "--json"]);
    const doc = world.readJson<Status>(status.stdout);
    expect(doc.designs[0]?.notSynced.map((n) => n.path).sort()).toEqual(["app.tsx", "cafe\u0301.ts", "lib/index.ts"]);
    expect(doc.designs[0]?.notSynced.find((n) => n.path === "cafe\u0301.ts")?.reason).toContain("not in Unicode normalization form C");
    const human = await world.run(["status"]);
    expect(human.stdout).toContain("not synced (3)");
    expect(human.stdout).not.toContain("in sync");
  });
});

describe("a file the service refuses as too large (413)", () => {
  it("is reported once, the rest is pushed, and status lists it as not synced instead of a pending change", async () => {
    const small = await startWorld({ maxBodyBytes: 16 * 1024 });
    try {
      const { editorId: id } = seedDesign(small, { "App.tsx": "export function App() { return null; }\n" });
      await small.writeSyncrc({ designs: [{ dir: "site", design: id }], pollIntervalSec: 0.05 });
      expect((await small.run(["pull"])).code).toBe(0);
      await writeFile(join(small.cwd, "site", "big.ts"), `export const big = "${"x".repeat(20 * 1024)}";\n`);
      await writeFile(join(small.cwd, "site", "App.tsx"), "export function App() { return 1; }\n");
      const push = await small.run(["push"]);
      expect(push.stderr).toContain("the service refused the file big.ts as too large (413)");
      expect(small.emulator.control.getFiles(id)["App.tsx"]).toBe("export function App() { return 1; }\n");
      expect(small.emulator.control.getFiles(id)["big.ts"]).toBeUndefined();
      expect((await small.run(["push"])).stderr).not.toContain("refused"); // once per content

      const doc = small.readJson<Status & { designs: { localChanges: string[] }[] }>((await small.run(["status", "--json"])).stdout);
      expect(doc.designs[0]?.localChanges).toEqual([]);
      expect(doc.designs[0]?.notSynced).toEqual([{ path: "big.ts", reason: expect.stringContaining("too large: 413"), needsAttention: true }]);
    } finally {
      await small.close();
    }
  });
});

describe("files left out of sync", () => {
  it("a symbolic link and a binary file the service never held are listed, left out by design: status still exits 0", () =>
    withFreshSite(async (world, site) => {
      await writeFile(site("logo.bin"), Buffer.from([0xff, 0xfe, 0x00, 0x81]));
      await symlink("App.tsx.link-target", site("linked.ts"));
      await symlink("/", site("node_modules"));
      const json = await world.run(["status", "--json"]);
      expect(json.code).toBe(0);
      const doc = world.readJson<Status>(json.stdout);
      const why = new Map(doc.designs[0]?.notSynced.map((n) => [n.path, n]));
      expect(why.get("logo.bin")).toEqual({ path: "logo.bin", reason: expect.stringContaining("binary"), needsAttention: false });
      expect(why.get("linked.ts")).toEqual({ path: "linked.ts", reason: expect.stringContaining("symbolic link"), needsAttention: false });
      expect(why.get("node_modules")?.needsAttention).toBe(false);
      const human = await world.run(["status"]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain("left out by design (links, special and binary files never sync) (3): linked.ts, logo.bin, node_modules");
      expect(human.stdout).not.toContain("not synced (");
      expect(human.stdout).toContain("in sync");
    }));

  it("a synced text turned binary is an edit that cannot go out: status says not synced and exits 1", () =>
    withFreshSite(async (world, site) => {
      await symlink("App.tsx", site("linked.ts"));
      await writeFile(site("App.tsx"), Buffer.from([0xff, 0xfe, 0x00, 0x81]));
      const json = await world.run(["status", "--json"]);
      expect(json.code).toBe(1);
      const doc = world.readJson<Status>(json.stdout);
      expect(doc.designs[0]?.notSynced.map((n) => [n.path, n.needsAttention])).toEqual([
        ["App.tsx", true],
        ["linked.ts", false],
      ]);
      const human = await world.run(["status"]);
      expect(human.code).toBe(1);
      expect(human.stdout).toContain("not synced (1):");
      expect(human.stdout).toContain("App.tsx: not UTF-8 text");
      expect(human.stdout).not.toContain("in sync");
    }));
});

/** A world of its own (the file's shared site holds the refused names of the tests above). */
async function withFreshSite(test: (world: E2eWorld, site: (...p: string[]) => string) => Promise<void>): Promise<void> {
  const fresh = await startWorld();
  try {
    const { editorId: id } = seedDesign(fresh, { "App.tsx": "export function App() { return null; }\n" });
    await fresh.writeSyncrc({ designs: [{ dir: "site", design: id }], pollIntervalSec: 0.05 });
    expect((await fresh.run(["pull"])).code).toBe(0);
    await test(fresh, (...p) => join(fresh.cwd, "site", ...p));
  } finally {
    await fresh.close();
  }
}

describe("the daemon shown by status", () => {
  it("a lock left by a dead process shows no daemon, and says so", async () => {
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid ?? 999_999;
    await writeFile(site(".mpsync", "lock"), `${JSON.stringify({ pid: dead, hostname: hostname(), command: "mpsync watch", startedAt: Date.now() - 8000 })}\n`);
    const status = await world.run(["status", "--json"]);
    const doc = world.readJson<Status>(status.stdout);
    expect(doc.designs[0]?.daemon).toBeUndefined();
    expect(doc.designs[0]?.staleLock?.pid).toBe(dead);
    const human = await world.run(["status"]);
    expect(human.stdout).not.toContain("daemon: pid");
    expect(human.stdout).toContain(`no daemon running: pid ${dead} (mpsync watch) is gone`);
  });

  it("a lock whose pid now belongs to a process started later is not that daemon", async () => {
    // This test process started before the lock's time: the lock names a live pid, but not its holder.
    await writeFile(
      site(".mpsync", "lock"),
      `${JSON.stringify({ pid: process.pid, hostname: hostname(), command: "mpsync watch", startedAt: Date.now() - 3_600_000 * 24 * 365 })}\n`,
    );
    const doc = world.readJson<Status>((await world.run(["status", "--json"])).stdout);
    expect(doc.designs[0]?.daemon).toBeUndefined();
  });
});
