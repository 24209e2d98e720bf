/**
 * The emulator as an offline stand-in for an installed user, through the built CLI: a
 * teammate's web edit and generation played by `mpsync emulator web-edit` / `generate`, links
 * that say they are placeholders, a publish that says where esbuild goes, and `open --preview`
 * after it. Wording is compared line by line.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { until } from "../support/wait.js";
import { seedDesign, startWorld, type E2eWorld } from "./helpers.js";

const PLACEHOLDER = "(a placeholder: the emulator has no web editor)";

let world: E2eWorld;
afterEach(async () => world.close());

describe("on the emulator", () => {
  let editorId: string;
  beforeEach(async () => {
    world = await startWorld({ compileCheck: false, esbuildDir: "/opt/where-the-emulator-runs" });
    editorId = seedDesign(world, { "App.tsx": "export default 1;\n", "extra.ts": "export const x = 1;\n" }).editorId;
    await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
    expect((await world.run(["pull"])).code).toBe(0);
  });

  it("web-edit appends to the active version without a new version, and removes a file", async () => {
    const versions = world.emulator.control.getDesign(editorId).versions.length;
    const edited = await world.run(["emulator", "web-edit", "site/App.tsx", "// from the web"]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout.split("\n")).toEqual([
      `✓ web editor of ${editorId}: appended "// from the web" to App.tsx (the active version; no new version)`,
      "  a running mpsync watch pulls it at its next content check (remoteCheckSec), or now: mpsync pull site",
      "",
    ]);
    expect(world.emulator.control.getFiles(editorId)["App.tsx"]).toBe("export default 1;\n// from the web\n");
    expect(world.emulator.control.getDesign(editorId).versions.length).toBe(versions);

    const removed = await world.run(["emulator", "web-edit", "extra.ts", "--remove", "--json"]);
    expect(world.readJson(removed.stdout)).toEqual({ ok: true, editorId, path: "extra.ts", action: "removed" });
    expect(Object.keys(world.emulator.control.getFiles(editorId))).toEqual(["App.tsx"]);
    expect((await world.run(["pull"])).code).toBe(0);
    expect(await readFile(join(world.cwd, "site", "App.tsx"), "utf8")).toBe("export default 1;\n// from the web\n");

    const missing = await world.run(["emulator", "web-edit", "nope.ts", "--remove"]);
    expect([missing.code, missing.stderr]).toEqual([1, `error: nope.ts is not in design ${editorId}\n`]);
  });

  it("generate starts a teammate's generation that ends in a new version", async () => {
    const versions = world.emulator.control.getDesign(editorId).versions.length;
    const started = await world.run(["emulator", "generate", "add a FAQ"]);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout.split("\n")[0]).toBe(`✓ web editor of ${editorId}: generating "add a FAQ"`);
    await until(() => world.emulator.control.getDesign(editorId).versions.length === versions + 1, 10_000, "the generation's version");
  });

  it("refuses to play the web editor of an address that is not loopback", async () => {
    await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }] });
    const r = await world.run(["emulator", "web-edit", "App.tsx"], { env: { MPSYNC_BASE_URL: "https://api.example.com/api" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: mpsync emulator web-edit plays the web editor of the emulator only: site syncs with https://api.example.com/api; point baseUrl in .syncrc or MPSYNC_BASE_URL at a running mpsync emulator\n",
    );
  });

  it("links say they are placeholders; publish says where esbuild goes; open --preview points at mpsync dev", async () => {
    const open = await world.run(["open", "--print"]);
    expect(open.stdout).toBe(`https://www.magicpatterns.com/c/${editorId} ${PLACEHOLDER.slice(0, -1)}; the design's files are in site)\n`);
    const published = await world.run(["publish"]);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toBe(
      "✓ site published; not compile-checked: esbuild is not installed where the emulator runs (npm install esbuild in /opt/where-the-emulator-runs, then restart mpsync emulator)\n",
    );
    const preview = await world.run(["open", "--preview", "--print"]);
    expect(preview.code).toBe(1);
    expect(preview.stderr).toBe(
      "error: site: the emulator publishes no preview (its preview links are placeholders); preview the folder locally: mpsync dev site\n",
    );
  });
});

it("create and init --create print the editor link as a placeholder", async () => {
  world = await startWorld();
  const created = await world.run(["create", "--name", "Demo"]);
  const id = /created design (\S+)/.exec(created.stdout)?.[1] ?? "";
  expect(created.stdout.split("\n").slice(0, 3)).toEqual([
    `✓ created design ${id}`,
    `  editor:  https://www.magicpatterns.com/c/${id} ${PLACEHOLDER}`,
    "  preview: not published yet (mpsync publish after init)",
  ]);
  const init = await world.run(["init", "web", "--create", "--name", "Site"]);
  const initId = /created design ([^:\s]+)/.exec(init.stdout)?.[1] ?? "";
  expect(init.stdout.split("\n")[0]).toBe(`✓ created design ${initId}: https://www.magicpatterns.com/c/${initId} ${PLACEHOLDER}`);
});
