/**
 * Where the API key lives, through the built CLI: the OS keychain (a real Secret Service:
 * gnome-keyring in a private D-Bus session), the credentials file where no keychain answers or
 * the binding does not load, a key left in the file, and the native binding loaded only when a
 * command needs a stored key.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSecretService, type SecretService } from "../support/secret-service.js";
import { BIN, KEY, readText, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let address: string;
let file: string;
const OTHER = "http://127.0.0.1:9/api";

beforeAll(async () => {
  world = await startWorld();
  address = world.emulator.baseUrl.replace(/\/+$/, "");
  file = join(world.env["XDG_CONFIG_HOME"] ?? "", "mpsync", "credentials.json");
  const { editorId } = seedDesign(world);
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
  expect((await world.run(["pull"])).code).toBe(0);
});
afterAll(async () => {
  await world.close();
});

/** The status line naming the service and the key's store. */
async function keyLine(env: Record<string, string | undefined>): Promise<string | undefined> {
  const r = await world.run(["status"], { env });
  return r.stdout.split("\n").find((line) => line.startsWith("service "));
}

async function doctorCheck(env: Record<string, string | undefined>, name: string): Promise<{ ok: boolean; detail: string } | undefined> {
  const r = await world.run(["doctor", "--json"], { env });
  return world.readJson<{ checks: { name: string; ok: boolean; detail: string }[] }>(r.stdout).checks.find((c) => c.name === name);
}

describe("with a Secret Service", () => {
  let keyring: SecretService;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    keyring = await startSecretService(join(world.root, "keyring-home"));
    env = { MP_API_KEY: undefined, ...keyring.env };
  });
  afterAll(async () => {
    await keyring.close();
  });

  it("login keeps the key in the keychain, not in a file; status and doctor name the store; logout removes it", async () => {
    const login = await world.run(["login"], { env, input: `${KEY}\n` });
    expect(login.code).toBe(0);
    expect(login.stdout).toBe(`✓ key accepted by ${address} and saved in the Secret Service keychain\n`);
    expect(login.stderr).toBe("");
    expect(existsSync(file)).toBe(false);

    expect(await keyLine(env)).toBe(`service ${address}, key for ${address} from the Secret Service keychain`);
    expect(await doctorCheck(env, "api key")).toEqual({
      name: "api key",
      ok: true,
      detail: `present for ${address}, from the Secret Service keychain`,
      fix: null,
    });
    expect((await doctorCheck(env, "key store"))?.detail).toBe("the Secret Service keychain answers: mpsync login keeps keys there");

    const logout = await world.run(["logout"], { env });
    expect(logout.stdout).toBe(`✓ removed the stored key for ${address} from the Secret Service keychain\n`);
    const pull = await world.run(["pull"], { env });
    expect(pull.code).toBe(3);
    expect(pull.stderr).toBe(`error: site: no API key for ${address}; set MP_API_KEY or run mpsync login\n`);
  });

  it("a key already in the file keeps working; login says it is there and --move-keys moves it", async () => {
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, JSON.stringify({ keys: { [address]: KEY, [OTHER]: "other-key-4f1e" } }), { mode: 0o600 });
    await chmod(file, 0o600);
    expect((await world.run(["pull"], { env })).code).toBe(0);
    expect(await keyLine(env)).toBe(`service ${address}, key for ${address} from ${file}`);

    const login = await world.run(["login"], { env, input: `${KEY}\n` });
    expect(login.code).toBe(0);
    expect(login.stdout.split("\n")).toEqual([
      `✓ key accepted by ${address} and saved in the Secret Service keychain`,
      `${file} still holds a key for ${OTHER}: mpsync login --move-keys moves it into the keychain`,
      "",
    ]);
    expect(JSON.parse(await readText(file))).toEqual({ keys: { [OTHER]: "other-key-4f1e" } });

    const move = await world.run(["login", "--move-keys"], { env });
    expect(move.stdout).toBe(`✓ moved into the keychain: the key for ${OTHER}\n`);
    expect(existsSync(file)).toBe(false);
    expect((await doctorCheck({ ...env, MPSYNC_BASE_URL: OTHER }, "api key"))?.detail).toBe(`present for ${OTHER}, from the Secret Service keychain`);

    await writeFile(file, JSON.stringify({ apiKey: "older-any-7b2e", keys: { [OTHER]: "other-key-4f1e" } }), { mode: 0o600 });
    const screen = await loginOnTerminal(env, "y");
    expect(screen).not.toContain(KEY);
    expect(screen.split("\n").slice(-3)).toEqual([
      `${file} still holds a key for ${OTHER}. Move it into the keychain? [Y/n] y`,
      `✓ moved into the keychain: the key for ${OTHER}`,
      "",
    ]);
    // The any-address key of an older mpsync stays: this address has its own key now.
    expect(JSON.parse(await readText(file))).toEqual({ apiKey: "older-any-7b2e" });

    const all = await world.run(["logout", "--all"], { env });
    expect(all.stdout).toBe(`✓ removed every stored key from the Secret Service keychain and ${file}\n`);
    expect((await doctorCheck(env, "api key"))?.detail).toBe(
      `no key for ${address}: MP_API_KEY is not set, ${file} does not exist, the Secret Service keychain holds none`,
    );
  });
});

/**
 * `mpsync login` on a terminal (script(1)): types the key at the hidden prompt and `answer` at
 * the offer to move the file's keys. Resolves the screen.
 */
function loginOnTerminal(env: Record<string, string | undefined>, answer: string): Promise<string> {
  const merged = Object.fromEntries(Object.entries({ ...world.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined));
  const child = spawn("script", ["-q", "-e", "-c", `'${process.execPath}' '${BIN}' login`, "/dev/null"], { cwd: world.cwd, env: merged });
  let screen = "";
  let typed = 0;
  child.stdout.on("data", (d: Buffer) => {
    screen += d.toString("utf8");
    if (typed === 0 && screen.includes("API key (input hidden): ")) {
      typed = 1;
      child.stdin.write(`${KEY}\r`);
    }
    if (typed === 1 && screen.includes("[Y/n] ")) {
      typed = 2;
      child.stdin.write(`${answer}\r`);
    }
  });
  return new Promise((resolve) => child.on("close", () => resolve(screen.replace(/\r/g, ""))));
}

describe("without a keychain", () => {
  const env = { MP_API_KEY: undefined };

  it("login saves to the file and says so in one line; status names the file; logout removes it", async () => {
    const login = await world.run(["login"], { env, input: `${KEY}\n` });
    expect(login.code).toBe(0);
    expect(login.stdout).toBe(`✓ key accepted by ${address} and saved to ${file}\n`);
    expect(login.stderr).toBe(
      "! no keychain answers (no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set): the key is kept in the file instead (mode 0600)\n",
    );
    expect(await keyLine(env)).toBe(`service ${address}, key for ${address} from ${file}`);
    // Said by login only: a command that reads the key says nothing about the keychain.
    expect((await world.run(["pull"], { env })).stderr).toBe("");
    expect((await world.run(["logout"], { env })).stdout).toBe(`✓ removed the stored key for ${address} from ${file}\n`);
  });

  it("a binding that does not load (an unsupported platform) falls back to the file with one line", async () => {
    const broken = { ...env, NAPI_RS_NATIVE_LIBRARY_PATH: join(world.root, "missing.node") };
    const login = await world.run(["login"], { env: broken, input: `${KEY}\n` });
    expect(login.code).toBe(0);
    expect(login.stdout).toBe(`✓ key accepted by ${address} and saved to ${file}\n`);
    const lines = login.stderr.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^! the keychain binding does not load on linux-x64 \(Cannot find native binding\..*\): the key is kept in the file instead \(mode 0600\)$/,
    );
    expect((await world.run(["pull"], { env: broken })).code).toBe(0);
    expect((await world.run(["logout"], { env: broken })).code).toBe(0);
  });

  it("the binding loads only when a command looks for a stored key beyond MP_API_KEY and the file", async () => {
    // The binding's loader requires this file instead of the native one: it leaves a mark.
    const mark = join(world.root, "binding-loaded");
    const probe = join(world.root, "probe-binding.cjs");
    await writeFile(probe, `require("node:fs").writeFileSync(${JSON.stringify(mark)}, "");\nmodule.exports = {};\n`);
    const probed = { NAPI_RS_NATIVE_LIBRARY_PATH: probe };
    expect((await world.run(["--help"], { env: probed })).code).toBe(0);
    expect((await world.run(["status"], { env: probed })).code).toBe(0);
    expect(existsSync(mark)).toBe(false);
    expect((await world.run(["login"], { env: { ...probed, ...env }, input: `${KEY}\n` })).code).toBe(0);
    expect(existsSync(mark)).toBe(true);
  });
});

describe("a key stored for another address (login --base-url, then a command without MPSYNC_BASE_URL)", () => {
  const real = "https://api.magicpatterns.com/api";

  it("says in one line which address has a key and how to choose it; doctor checks the address commands use", async () => {
    const env = { MP_API_KEY: undefined, MPSYNC_BASE_URL: undefined };
    expect((await world.run(["login", "--base-url", address], { env, input: `${KEY}\n` })).code).toBe(0);
    const cwd = join(world.root, "fresh");
    await mkdir(cwd, { recursive: true });
    // No request leaves the machine: the key is looked for before the service is asked.
    const init = await world.run(["init", "site", "--create"], { env, cwd });
    expect({ code: init.code, stderr: init.stderr }).toEqual({
      code: 3,
      stderr: `error: no API key for ${real}, but mpsync login stored one for ${address}; to use that service, set "baseUrl": "${address}" in .syncrc or MPSYNC_BASE_URL=${address}; for ${real}, run mpsync login\n`,
    });

    await writeFile(join(cwd, ".syncrc"), JSON.stringify({ baseUrl: OTHER, designs: [{ dir: "site", design: "d1" }] }));
    const doctor = await world.run(["doctor", "--json"], { env, cwd });
    expect(doctor.code).toBe(3);
    const checks = world.readJson<{ checks: { name: string; detail: string; fix: string | null }[] }>(doctor.stdout).checks;
    expect(checks.find((c) => c.name === "address")?.detail).toBe(`${OTHER}, from baseUrl in ${join(cwd, ".syncrc")}`);
    expect(checks.find((c) => c.name === "api key")).toMatchObject({
      detail: `no API key for ${OTHER}, but mpsync login stored one for ${address}`,
      fix: `to use that service, set "baseUrl": "${address}" in .syncrc or MPSYNC_BASE_URL=${address}; for ${OTHER}, run mpsync login`,
    });
    expect(existsSync(file)).toBe(true);
    expect(doctor.stdout).not.toContain(`${file} does not exist`);

    const chosen = await world.run(["doctor", "--json"], { env: { ...env, MPSYNC_BASE_URL: address }, cwd });
    const after = world.readJson<{ checks: { name: string; ok: boolean; detail: string }[] }>(chosen.stdout).checks;
    expect(after.find((c) => c.name === "api key")).toMatchObject({ ok: true, detail: `present for ${address}, from ${file}` });
    expect(after.find((c) => c.name === "key valid")?.ok).toBe(true);
    expect((await world.run(["logout", "--all"], { env })).code).toBe(0);
  });

  it("doctor exits 3 when the service refuses the key, as the README says", async () => {
    const r = await world.run(["doctor", "--json"], { env: { MP_API_KEY: "refused-key-8c1d" } });
    expect(r.code).toBe(3);
    const check = world.readJson<{ checks: { name: string; detail: string }[] }>(r.stdout).checks.find((c) => c.name === "key valid");
    expect(check?.detail).toBe("refused: GET /v3/health 401");
  });
});
