/**
 * The published json-output.schema.json against the built CLI's real --json output (the
 * emulator on 127.0.0.1:0). Every e2e run with --json is checked too (support/json-output.ts);
 * here the check itself is shown to bite, and the places that list events agree with it.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { SYNC_EVENT_NAMES } from "../../src/sync/events.js";
import type { CLI_DOCUMENTS } from "../../src/app/json-documents.js";
import type { DesignStatusReport } from "../../src/app/collect-status.js";
import type { CycleSummary } from "../../src/sync/cycle-summary.js";
import type { PublishOutcome } from "../../src/cli/commands/publish.js";
import type { PromptResult } from "../../src/cli/commands/prompt.js";
import type { DoctorCheck } from "../../src/app/doctor.js";
import { spawnWatch } from "../daemon/daemon-process.js";
import { REPO, seedDesign, startWorld, type E2eWorld } from "./helpers.js";
import { publishedValidator, schemaMismatch } from "../support/json-output.js";

let world: E2eWorld;
beforeAll(async () => {
  world = await startWorld();
  const { editorId } = seedDesign(world, { "App.tsx": "export const App = () => null;\n", "index.css": "body {}\n" });
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05, remoteCheckSec: 0.2, debounceMs: 50 });
});
afterAll(async () => {
  await world.close();
});

describe("json-output.schema.json", () => {
  it("describes pull, status and an error as the built CLI prints them, and refuses a field it lacks", async () => {
    const pull = await world.run(["pull", "--json"]);
    expect(pull.code).toBe(0);
    const status = await world.run(["status", "--json"]);
    const failed = await world.run(["versions", "--json", "--dir", "nowhere"]);
    expect(failed.code).not.toBe(0);
    const docs: [string, unknown][] = [
      ["pull", JSON.parse(pull.stdout)],
      ["status", JSON.parse(status.stdout)],
      ["error", JSON.parse(failed.stdout)],
    ];
    for (const [kind, doc] of docs) expect(schemaMismatch([kind], doc), kind).toBeUndefined();
    const withExtra = { ...(JSON.parse(status.stdout) as Record<string, unknown>), surprise: 1 };
    expect(schemaMismatch(["status"], withExtra)).toMatch(/surprise/);
    const report = (JSON.parse(status.stdout) as { designs: Record<string, unknown>[] }).designs[0]!;
    expect(publishedValidator("status").safeParse({ ...(JSON.parse(status.stdout) as object), designs: [{ ...report, newField: true }] }).success).toBe(false);
  });

  it("describes every event watch --json printed, and refuses an event it does not name", async () => {
    const d = spawnWatch(world.cwd, world.env);
    try {
      await d.waitFor((e) => e.event === "ready");
      await writeFile(join(world.cwd, "site", "index.css"), "body { color: red; }\n");
      await d.waitFor((e) => e.event === "pushed");
      world.emulator.control.editFile(String(d.events[0]!["editorId"]), "App.tsx", "export const App = () => 1;\n");
      await d.waitFor((e) => e.event === "pulled");
    } finally {
      d.child.kill("SIGTERM");
      await d.exited;
    }
    expect(d.events.length).toBeGreaterThanOrEqual(3);
    for (const e of d.events) expect(schemaMismatch(["event"], e)).toBeUndefined();
    const ready = d.events[0]!;
    expect(schemaMismatch(["event"], { ...ready, event: "teleported" })).toBeDefined();
    expect(schemaMismatch(["event"], { ...ready, extra: 1 })).toBeDefined();
  });

  it("names every event the engine has; watch --help and the README list them all", async () => {
    const schema = JSON.parse(await readFile(join(REPO, "json-output.schema.json"), "utf8")) as {
      definitions: { event: { oneOf: { properties: { event: { const: string } } }[] } };
    };
    expect(schema.definitions.event.oneOf.map((o) => o.properties.event.const)).toEqual([...SYNC_EVENT_NAMES]);
    const help = await world.run(["watch", "--help"]);
    const readme = await readFile(join(REPO, "README.md"), "utf8");
    for (const name of SYNC_EVENT_NAMES) {
      expect(help.stdout.replace(/\s+/g, " "), name).toMatch(new RegExp(`[ (]${name}[,)]`));
      expect(readme, name).toContain(`\`${name}\``);
    }
    expect(readme).toContain("json-output.schema.json");
  });

  it("has a field for every field of the reports commands print (a new one fails to compile here)", () => {
    type Of<K extends keyof typeof CLI_DOCUMENTS> = z.input<(typeof CLI_DOCUMENTS)[K]>;
    expectTypeOf<keyof Of<"status">["designs"][number]>().toEqualTypeOf<keyof DesignStatusReport>();
    expectTypeOf<Exclude<keyof Of<"pull">["designs"][number], "dir" | "editorId" | "skippedSecrets" | "elapsedMs">>().toEqualTypeOf<keyof CycleSummary>();
    expectTypeOf<keyof Of<"publish">["designs"][number]>().toEqualTypeOf<keyof PublishOutcome>();
    expectTypeOf<keyof Of<"prompt">>().toEqualTypeOf<keyof PromptResult>();
    expectTypeOf<keyof Of<"doctor">["checks"][number]>().toEqualTypeOf<keyof DoctorCheck>();
  });
});
