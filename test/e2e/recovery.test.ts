/**
 * The way back from any sync decision, on the built CLI: `restore` lists and puts back every copy
 * mpsync holds of a file; `pull --force` on an emptied folder restores what the service holds
 * and clears the halt.
 */
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readText, usePulledSite, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let editorId: string;
const site = (...p: string[]): string => join(world.cwd, "site", ...p);

usePulledSite((w, id) => {
  world = w;
  editorId = id;
});

describe("restore", () => {
  it("lists a backup and the last synced version; a copy older than what the service holds needs --force", async () => {
    const synced = await readText(site("index.css"));
    // A remote change replaces the local file: the old one goes to backups.
    world.emulator.control.editFile(editorId, "index.css", "/* remote v2 */\n");
    expect((await world.run(["pull"])).code).toBe(0);
    const list = await world.run(["restore", "site/index.css", "--list", "--json"]);
    expect(list.code).toBe(0);
    const listed = world.readJson<{ copies: { reason: string; at?: number }[]; backups: Record<string, number> }>(list.stdout);
    const copies = listed.copies;
    expect(copies.map((c) => c.reason)).toEqual(["backup: replaced or removed by sync", "last synced version (both sides agreed on it)"]);
    // What the backups hold in all, and the rule in force.
    expect(listed.backups).toMatchObject({ keepBackupsDays: 30 });
    expect(listed.backups["files"]).toBeGreaterThanOrEqual(1);
    expect(listed.backups["bytes"]).toBeGreaterThanOrEqual(synced.length);
    expect((await world.run(["restore", "site/index.css", "--list"])).stdout).toMatch(
      /backups of site: \d+ folders?, \d+ files?, .*; kept 30 days \(keepBackupsDays\)/,
    );

    // The backup lacks the service's line: the next push would take it away there too.
    const refused = await world.run(["restore", "site/index.css"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr + refused.stdout).toContain('lacks 1 line of the last synced version, first "/* remote v2 */"');
    expect(refused.stderr + refused.stdout).toContain("--force");
    expect(await readText(site("index.css"))).toBe("/* remote v2 */\n");

    const r = await world.run(["restore", "site/index.css", "--force"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("restored index.css in site");
    expect(await readText(site("index.css"))).toBe(synced);
    // The replaced content (remote v2) is itself backed up: the restore can be undone.
    const again = world.readJson<{ copies: { reason: string }[] }>((await world.run(["restore", "site/index.css", "--list", "--json"])).stdout);
    expect(again.copies.filter((c) => c.reason.startsWith("backup"))).toHaveLength(2);
  });

  it("a file deleted after a teammate's line was pulled comes back as the last synced version, with that line", async () => {
    await writeFile(site("index.css"), "/* mine */\n");
    expect((await world.run(["push"])).code).toBe(0);
    world.emulator.control.editFile(editorId, "index.css", "/* mine */\n/* teammate */\n");
    expect((await world.run(["pull"])).code).toBe(0);
    await rm(site("index.css"));
    const r = await world.run(["restore", "site/index.css"]);
    expect(r.code).toBe(0);
    expect(await readText(site("index.css"))).toBe("/* mine */\n/* teammate */\n");
  });

  it("brings back a file deleted locally from its last synced version", async () => {
    const before = await readText(site("App.tsx"));
    await rm(site("App.tsx"));
    const r = await world.run(["restore", "App.tsx", "--dir", "site"]);
    expect(r.code).toBe(0);
    expect(await readText(site("App.tsx"))).toBe(before);
  });

  it("--copy puts back the one copy named, among copies saved at one time (a conflict's sides and its backup)", async () => {
    const synced = await readText(site("index.css"));
    const first = synced.split("\n")[0]!;
    await writeFile(site("index.css"), synced.replace(first, "/* the local side */"));
    world.emulator.control.editFile(editorId, "index.css", synced.replace(first, "/* the remote side */"));
    expect((await world.run(["pull"])).code).toBe(5);
    const listed = world.readJson<{ copies: { reason: string; at?: number; file?: string }[] }>(
      (await world.run(["restore", "site/index.css", "--list", "--json"])).stdout,
    );
    const theirs = listed.copies.find((c) => c.reason === "conflict: the service's side");
    const atOnce = listed.copies.filter((c) => c.at === theirs?.at);
    expect(atOnce.length).toBeGreaterThan(1);
    const r = await world.run(["restore", "site/index.css", "--copy", theirs!.file!, "--force"]);
    expect(r.code).toBe(0);
    expect(await readText(site("index.css"))).toBe(synced.replace(first, "/* the remote side */"));
    const none = await world.run(["restore", "site/index.css", "--copy", "site/nothing.css"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no copy of index.css in site named site/nothing.css");
  });

  it("says so when it holds no copy (exit 2)", async () => {
    await writeFile(site("fresh.ts"), "export {};\n");
    const r = await world.run(["restore", "site/fresh.ts"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no copy of fresh.ts");
  });
});

describe("an emptied folder", () => {
  it("halts pull; pull --force restores the files the service holds and clears the halt", async () => {
    for (const name of await readdir(site())) if (name !== ".mpsync") await rm(site(name), { recursive: true, force: true });
    const halted = await world.run(["pull"]);
    expect(halted.code).toBe(1);
    // Said once, with what to do (the summary), not again as a warning above it.
    expect((halted.stderr + halted.stdout).match(/needs attention/g)).toHaveLength(1);
    expect(halted.stdout).toContain("needs attention: the mapped folder was emptied");
    expect(halted.stdout).toContain("run mpsync pull --force once you have checked");
    const forced = await world.run(["pull", "--force"]);
    expect(forced.code).toBe(0);
    const remote = world.emulator.control.getFiles(editorId);
    for (const [name, text] of Object.entries(remote)) expect(await readText(site(name))).toBe(text);
    const next = await world.run(["pull"]);
    expect(next.code).toBe(0);
    expect(next.stderr + next.stdout).not.toContain("needs attention");
  });
});
