/**
 * `status` tells the truth: conflict markers exit 5, a file deleted locally needs
 * attention (exit 1, never "in sync"), and an unreachable service still shows the local side.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seedDesign, startWorld, usePulledSite, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
const site = (...p: string[]): string => join(world.cwd, "site", ...p);

usePulledSite((w) => (world = w), { "App.tsx": "export function App() { return null; }\n", "index.css": "body {}\n" });

interface Doc {
  designs: { state: string; localChanges: string[]; deletedLocally: string[]; unresolvedConflicts: string[]; serviceError?: string }[];
}

describe("status exit codes", () => {
  it("a file deleted locally: listed with what to do, not in sync, exit 1", async () => {
    await rm(site("index.css"));
    const r = await world.run(["status"]);
    expect(r.stdout).toContain("deleted locally (1): index.css");
    expect(r.stdout).toContain("mpsync restore PATH");
    expect(r.stdout).not.toContain("in sync");
    expect(r.code).toBe(1);
  });

  it("unresolved conflict markers: exit 5, and the way out is named", async () => {
    await writeFile(site("App.tsx"), "<<<<<<< local\na\n=======\nb\n>>>>>>> remote v2\n");
    const r = await world.run(["status"]);
    expect(r.stdout).toContain("unresolved markers (1): App.tsx");
    expect(r.stdout).toContain("mpsync resolve PATH --ours|--theirs");
    expect(r.code).toBe(5);
  });
});

describe("the service cannot be reached", () => {
  it("the local side is shown, the service's part says it could not be reached, exit 1", async () => {
    const down = await startWorld();
    try {
      const { editorId } = seedDesign(down, { "App.tsx": "export function App() { return null; }\n" });
      await down.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
      expect((await down.run(["pull"])).code).toBe(0);
      await writeFile(join(down.cwd, "site", "App.tsx"), "export function App() { return 1; }\n");
      await writeFile(join(down.cwd, "site", "New.tsx"), "export const n = 1;\n");
      await down.emulator.close();
      const human = await down.run(["status"]);
      expect(human.stdout).toContain("the service could not be reached");
      expect(human.stdout).toContain("local changes (2): App.tsx, New.tsx");
      expect(human.stdout).not.toContain("in sync");
      expect(human.code).toBe(1);
      const doc = down.readJson<Doc>((await down.run(["status", "--json"])).stdout);
      expect(doc.designs[0]).toMatchObject({ localChanges: ["App.tsx", "New.tsx"], serviceError: expect.stringContaining("could not be reached") });
    } finally {
      await down.close().catch(() => undefined);
    }
  });
});
