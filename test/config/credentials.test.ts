import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MpsyncError } from "../../src/core/errors.js";
import { resolveApiKey as resolveWith } from "../../src/config/api-key.js";
import { readStoredApiKey, removeStoredApiKey, storeApiKey } from "../../src/config/credentials.js";
import type { OpenKeychain } from "../../src/config/keychain.js";
import { configHome, credentialsPath, stateHome } from "../../src/config/paths.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();
const posixOnly = process.platform === "win32" ? it.skip : it;
const noKeychain: OpenKeychain = () => Promise.resolve({ unavailable: "no keychain in this test" });
const ANY = "http://127.0.0.1:1/api";
/** The key in effect with no keychain: the environment, then the file. */
const resolveApiKey = (env: Record<string, string>, baseUrl = ANY) => resolveWith(env, baseUrl, noKeychain);

describe("paths", () => {
  it.each([
    { env: { XDG_CONFIG_HOME: "/xdg/config", HOME: "/home/u" }, config: "/xdg/config/mpsync" },
    { env: { HOME: "/home/u" }, config: "/home/u/.config/mpsync" },
    { env: { XDG_CONFIG_HOME: "relative/ignored", HOME: "/home/u" }, config: "/home/u/.config/mpsync" },
    { env: {}, config: join(homedir(), ".config", "mpsync") },
  ])("configHome($env)", ({ env, config }) => {
    expect(configHome(env)).toBe(config);
    expect(credentialsPath(env)).toBe(join(config, "credentials.json"));
  });

  it.each([
    { env: { XDG_STATE_HOME: "/xdg/state", HOME: "/home/u" }, state: "/xdg/state/mpsync" },
    { env: { HOME: "/home/u" }, state: "/home/u/.local/state/mpsync" },
  ])("stateHome($env)", ({ env, state }) => {
    expect(stateHome(env)).toBe(state);
  });
});

describe("credentials", () => {
  posixOnly("stores the key with mode 0600 in a 0700 folder, atomically replaced", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    const path = await storeApiKey("  mp_key_1  ", env);
    expect(path).toBe(join(env.XDG_CONFIG_HOME, "mpsync", "credentials.json"));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(env.XDG_CONFIG_HOME, "mpsync"))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ apiKey: "mp_key_1" });

    await storeApiKey("mp_key_2", env);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readStoredApiKey(env)).toEqual({ key: "mp_key_2", path });
  });

  posixOnly("tightens a loose existing folder", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    await mkdir(join(env.XDG_CONFIG_HOME, "mpsync"), { mode: 0o755 });
    await storeApiKey("k", env);
    expect((await stat(join(env.XDG_CONFIG_HOME, "mpsync"))).mode & 0o777).toBe(0o700);
  });

  posixOnly("returns a warning for a file readable by others, without throwing", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    const path = await storeApiKey("mp_key", env);
    await chmod(path, 0o644);
    const stored = await readStoredApiKey(env);
    expect(stored?.key).toBe("mp_key");
    expect(stored?.warning).toBe(`credentials file ${path} is readable by other users (mode 0644): run "chmod 600 ${path}"`);
    expect(await resolveApiKey(env)).toEqual({ key: "mp_key", source: "file", store: path, warning: stored?.warning });
  });

  it("prefers MP_API_KEY, then the file, else undefined", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    expect(await resolveApiKey(env)).toBeUndefined();
    const path = await storeApiKey("from_file", env);
    expect(await resolveApiKey(env)).toEqual({ key: "from_file", source: "file", store: path });
    expect(await resolveApiKey({ ...env, MP_API_KEY: "from_env" })).toEqual({ key: "from_env", source: "env", store: "MP_API_KEY" });
    expect(await resolveApiKey({ ...env, MP_API_KEY: "  " })).toEqual({ key: "from_file", source: "file", store: path });
  });

  it("keeps one key per service address: a login against the emulator never replaces the real service's key", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    const real = "https://api.magicpatterns.com/api";
    const emu = "http://127.0.0.1:4010/api/";
    await storeApiKey("real_key", env, real);
    const path = await storeApiKey("emu_key", env, emu);
    expect(await resolveApiKey(env, real)).toEqual({ key: "real_key", source: "file", baseUrl: real, store: path });
    expect(await resolveApiKey(env, "http://127.0.0.1:4010/api")).toEqual({
      key: "emu_key",
      source: "file",
      baseUrl: "http://127.0.0.1:4010/api",
      store: path,
    });
    expect(await resolveApiKey(env, "http://127.0.0.1:9999/api")).toBeUndefined();
    expect(await removeStoredApiKey(env, emu)).toBe(true);
    expect(await resolveApiKey(env, emu)).toBeUndefined();
    expect((await resolveApiKey(env, real))?.key).toBe("real_key");
    expect(await removeStoredApiKey(env, real)).toBe(true);
    expect(await readStoredApiKey(env, real)).toBeUndefined();
  });

  it("a key stored by an older mpsync (no address) still serves every address until logout", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    const path = await storeApiKey("old_key", env);
    const url = "https://api.magicpatterns.com/api";
    expect(await resolveApiKey(env, url)).toEqual({ key: "old_key", source: "file", store: path });
    await storeApiKey("new_key", env, url);
    expect((await resolveApiKey(env, url))?.key).toBe("new_key");
    expect((await resolveApiKey(env, "http://127.0.0.1:1/api"))?.key).toBe("old_key");
  });

  it("removes the file and says whether there was one", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    expect(await removeStoredApiKey(env)).toBe(false);
    await storeApiKey("k", env);
    expect(await removeStoredApiKey(env)).toBe(true);
    expect(await readStoredApiKey(env)).toBeUndefined();
  });

  it.each(["", "  ", "has space", "line\nbreak"])("refuses to store %j", async (key) => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    await expect(storeApiKey(key, env)).rejects.toMatchObject({ code: "USAGE" });
  });

  it.each(["not json", '{"apiKey": 42}', '{"apiKey": ""}', "null"])("reports a corrupt file %j without its content", async (content) => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    await mkdir(join(env.XDG_CONFIG_HOME, "mpsync"));
    await writeFile(join(env.XDG_CONFIG_HOME, "mpsync", "credentials.json"), content, { mode: 0o600 });
    const error = await readStoredApiKey(env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MpsyncError);
    expect((error as MpsyncError).code).toBe("CONFIG_INVALID");
    expect((error as MpsyncError).message).toBe(`credentials file ${credentialsPath(env)} is not valid: run "mpsync login" again`);
  });
});
