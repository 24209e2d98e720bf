/** Small things people expect of a CLI: --version, bare mpsync, forgiving folder arguments. */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, seedDesign, startWorld, type E2eWorld } from "./helpers.js";
import { readFileSync } from "node:fs";

let world: E2eWorld;

beforeAll(async () => {
  world = await startWorld();
  const a = seedDesign(world).editorId;
  const b = seedDesign(world).editorId;
  await mkdir(join(world.cwd, "web"), { recursive: true });
  await world.writeSyncrc({
    designs: [
      { dir: "web", design: a },
      { dir: "app", design: b },
    ],
    pollIntervalSec: 0.05,
  });
  expect((await world.run(["pull"])).code).toBe(0);
});
afterAll(async () => {
  await world.close();
});

describe("basics", () => {
  it("-V and --version print the package version", async () => {
    const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
    for (const flag of ["-V", "--version"]) {
      const r = await world.run([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(version);
    }
  });

  it("bare mpsync prints the help on stderr and exits 2", async () => {
    const r = await world.run([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage: mpsync");
    expect(r.stdout).toBe("");
  });
});

describe("folder arguments", () => {
  it("accept a trailing slash, ./ and an absolute path", async () => {
    for (const form of ["web/", "./web/", join(world.cwd, "web")]) {
      const r = await world.run(["pull", form, "--json"]);
      expect(r.code, `${form}: ${r.stderr}`).toBe(0);
      expect(world.readJson<{ designs: { dir: string }[] }>(r.stdout).designs.map((d) => d.dir)).toEqual(["web"]);
    }
  });

  it("inside a mapped folder, a single-design command uses it without --dir", async () => {
    const r = await world.run(["versions", "--json"], { cwd: join(world.cwd, "web") });
    expect(r.code, r.stderr).toBe(0);
    const outside = await world.run(["versions"]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("choose one with --dir");
  });
});
