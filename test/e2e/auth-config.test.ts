/** login/logout, doctor, usage and config errors, auth failures, help texts. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import type { CliIo } from "../../src/cli/context.js";
import { KEY, readText, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world.close();
});

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix: string | null;
}

describe("login and logout", () => {
  const address = (): string => world.emulator.baseUrl.replace(/\/+$/, "");
  const credentials = (): string => join(world.env["XDG_CONFIG_HOME"] ?? "", "mpsync", "credentials.json");

  it("reads the key from piped stdin, checks it, and stores it with mode 0600", async () => {
    const r = await world.run(["login"], { env: { MP_API_KEY: undefined }, input: `${KEY}\n` });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("saved to");
    expect((await stat(credentials())).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readText(credentials()))).toEqual({ keys: { [address()]: KEY } });
  });

  it("a key for another address is stored beside it, not over it", async () => {
    const other = "http://127.0.0.1:9/api";
    // The check runs against that address, which answers nothing: nothing is saved.
    const r = await world.run(["login", "--base-url", other], { env: { MP_API_KEY: undefined }, input: `${KEY}\n` });
    expect(r.code).not.toBe(0);
    expect(JSON.parse(await readText(credentials()))).toEqual({ keys: { [address()]: KEY } });
    const bad = await world.run(["login", "--base-url", "not a url"], { env: { MP_API_KEY: undefined }, input: `${KEY}\n` });
    expect(bad.code).toBe(2);
  });

  it("doctor uses the stored key and reports every check with a fix", async () => {
    const r = await world.run(["doctor", "--json"], { env: { MP_API_KEY: undefined } });
    expect(r.code).toBe(1);
    const { checks } = world.readJson<{ checks: Check[] }>(r.stdout);
    const byName = new Map(checks.map((c) => [c.name, c]));
    expect(byName.get("config")?.ok).toBe(false);
    expect(byName.get("config")?.fix).toContain("mpsync init");
    expect(byName.get("api key")).toMatchObject({ ok: true });
    expect(byName.get("key valid")?.detail).toMatch(/200 in \d+ ms/);
    expect(byName.get("clock")?.ok).toBe(true);
    for (const c of checks) {
      expect(Object.keys(c).sort()).toEqual(["detail", "fix", "name", "ok"]);
      expect(c.ok ? c.fix : typeof c.fix).toBe(c.ok ? null : "string");
    }
  });

  it("refuses a key the service rejects (exit 3) and keeps the stored one", async () => {
    const r = await world.run(["login"], { env: { MP_API_KEY: undefined }, input: "not-the-key\n" });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("nothing was saved");
    expect(JSON.parse(await readText(credentials()))).toEqual({ keys: { [address()]: KEY } });
  });

  it("logout removes the stored key", async () => {
    const r = await world.run(["logout", "--json"], { env: { MP_API_KEY: undefined } });
    expect(r.code).toBe(0);
    expect(world.readJson(r.stdout)).toMatchObject({ ok: true, removed: true });
    await expect(stat(credentials())).rejects.toThrow();
  });
});

describe("exit codes", () => {
  it("suggests the closest command for a typo and exits 2", async () => {
    const r = await world.run(["stauts"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Did you mean status?");
  });

  it("exits 2 for a broken .syncrc, naming the key", async () => {
    await world.writeSyncrc({ designs: [{ dir: "web", design: "abc" }], pollIntervalSec: "fast" });
    const r = await world.run(["status"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pollIntervalSec");
    await world.writeSyncrc({ designs: [{ dir: "web", design: "abc" }], apiKey: "oops" });
    const j = await world.run(["status", "--json"]);
    expect(j.code).toBe(2);
    const doc = world.readJson<{ ok: boolean; error: { code: string; message: string; exitCode: number } }>(j.stdout);
    expect(doc).toMatchObject({ ok: false, error: { code: "CONFIG_INVALID", exitCode: 2 } });
    expect(doc.error.message).toContain("apiKey");
    expect(doc.error.message).toContain("MP_API_KEY");
  });

  it("exits 3 when the key is refused", async () => {
    const { editorId } = seedDesign(world);
    await world.writeSyncrc({ designs: [{ dir: "web", design: editorId }], pollIntervalSec: 0.2 });
    const r = await world.run(["versions"], { env: { MP_API_KEY: "wrong-key" } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("401");
    // It says which key was refused, instead of asking to set a variable that is set.
    expect(r.stderr).toContain("the service refused the key in MP_API_KEY");
    expect(r.stderr).not.toContain("API key missing or invalid");
  });

  it("watch with a refused key says which key, never 'ready', and exits 3", async () => {
    const { editorId } = seedDesign(world);
    await world.writeSyncrc({ designs: [{ dir: "web", design: editorId }], pollIntervalSec: 0.2 });
    const r = await world.run(["watch"], { env: { MP_API_KEY: "wrong-key" } });
    expect(r.code).toBe(3);
    expect(r.stdout).not.toContain("ready");
    expect(r.stderr).toContain("the service refused the key in MP_API_KEY");
  });

  it("an error in a folder's sync names the folder and says what failed in words", async () => {
    const { editorId } = seedDesign(world);
    await world.writeSyncrc({ designs: [{ dir: "web", design: editorId }], pollIntervalSec: 0.2 });
    world.emulator.control.failNext({ method: "GET", path: /\/active-artifact$/ }, { status: 500 }, 20);
    const r = await world.run(["pull", "web"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`web (design ${editorId}): could not read the active version: 500`);
    expect(r.stderr).not.toContain("{editorId}");
    world.emulator.control.clearFaults();
  });
});

describe("help", () => {
  it("every command has an example", async () => {
    let text = "";
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString();
        done();
      },
    });
    const io = { argv: [], cwd: world.cwd, env: {}, stdout: sink, stderr: sink, stdin: process.stdin, onSignal: () => () => undefined } as unknown as CliIo;
    const program = buildProgram(io, { code: 0 });
    const names = program.commands.map((c) => c.name());
    expect(names).toEqual(
      expect.arrayContaining([
        "init",
        "create",
        "prompt",
        "versions",
        "checkout",
        "snapshot",
        "publish",
        "design-systems",
        "resolve-url",
        "login",
        "logout",
        "doctor",
        "emulator",
      ]),
    );
    // A command group (history) carries its examples on its subcommands.
    const leaves = program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands.filter((s) => s.name() !== "help") : [c]));
    for (const command of leaves) {
      text = "";
      command.outputHelp();
      expect(text, `mpsync ${command.name()} --help`).toMatch(/Examples?:\n\s+\$ .*mpsync/);
    }
  });
});
