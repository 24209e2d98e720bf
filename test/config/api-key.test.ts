import { describe, expect, it } from "vitest";
import { noApiKeyError, resolveApiKey, storedAddresses } from "../../src/config/api-key.js";
import { storeApiKey } from "../../src/config/credentials.js";
import type { Keychain, OpenKeychain } from "../../src/config/keychain.js";
import { describeError } from "../../src/sync/describe-error.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();
const REAL = "https://api.magicpatterns.com/api";
const EMU = "http://127.0.0.1:4010/api";

/** A keychain in memory (the real one is tested through the CLI against a Secret Service). */
function memoryKeychain(entries: Record<string, string>): { open: OpenKeychain; opened: () => number } {
  let opened = 0;
  const keychain: Keychain = {
    name: "the test keychain",
    get: (address) => Promise.resolve(entries[address]),
    set: (address, key) => Promise.resolve(void (entries[address] = key)),
    remove: (address) => Promise.resolve(delete entries[address]),
    addresses: () => Promise.resolve(Object.keys(entries).sort()),
    whyUnavailable: () => Promise.resolve(undefined),
  };
  return {
    open: () => {
      opened++;
      return Promise.resolve({ keychain });
    },
    opened: () => opened,
  };
}

describe("the key in effect", () => {
  it("MP_API_KEY, then the file's key for the address, then the keychain's, then an older any-address key", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    const keychain = memoryKeychain({ [REAL]: "kc_real", [EMU]: "kc_emu" });
    expect(await resolveApiKey({ ...env, MP_API_KEY: "from_env" }, REAL, keychain.open)).toEqual({ key: "from_env", source: "env", store: "MP_API_KEY" });
    // MP_API_KEY never opens the keychain: its native binding stays unloaded.
    expect(keychain.opened()).toBe(0);
    expect(await resolveApiKey(env, REAL, keychain.open)).toEqual({ key: "kc_real", source: "keychain", baseUrl: REAL, store: "the test keychain" });
    const path = await storeApiKey("file_emu", env, EMU);
    const opened = keychain.opened();
    expect(await resolveApiKey(env, `${EMU}/`, keychain.open)).toEqual({ key: "file_emu", source: "file", baseUrl: EMU, store: path });
    expect(keychain.opened()).toBe(opened);
    await storeApiKey("old_any", env);
    expect((await resolveApiKey(env, REAL, keychain.open))?.key).toBe("kc_real");
    expect(await resolveApiKey(env, "http://127.0.0.1:1/api", keychain.open)).toEqual({ key: "old_any", source: "file", store: path });
  });

  it("lists the addresses of both stores once each", async () => {
    const env = { XDG_CONFIG_HOME: await tempDir() };
    await storeApiKey("k1", env, EMU);
    expect(await storedAddresses(env, memoryKeychain({ [REAL]: "k2", [EMU]: "k3" }).open)).toEqual([EMU, REAL]);
    expect(await storedAddresses(env, () => Promise.resolve({ unavailable: "none" }))).toEqual([EMU]);
  });
});

describe("no key for the address", () => {
  it.each([
    { others: [], line: `no API key for ${REAL}; set MP_API_KEY or run mpsync login` },
    { others: [REAL], line: `no API key for ${REAL}; set MP_API_KEY or run mpsync login` },
    {
      others: [EMU],
      line: `no API key for ${REAL}, but mpsync login stored one for ${EMU}; to use that service, set "baseUrl": "${EMU}" in .syncrc or MPSYNC_BASE_URL=${EMU}; for ${REAL}, run mpsync login`,
    },
    {
      others: [EMU, "http://localhost:5000/api"],
      line: `no API key for ${REAL}, but mpsync login stored keys for ${EMU}, http://localhost:5000/api; to use one of them, set "baseUrl": "${EMU}" in .syncrc or MPSYNC_BASE_URL=${EMU}; for ${REAL}, run mpsync login`,
    },
  ])("others $others: one line", ({ others, line }) => {
    const error = noApiKeyError(`${REAL}/`, others);
    expect(error.code).toBe("NO_API_KEY");
    expect(describeError(error)).toBe(line);
  });
});
