/**
 * The API key in effect for a service address (README, "The API key"): MP_API_KEY; else the key
 * `mpsync login` stored for that address, in the credentials file (a key kept there keeps
 * working, and reading a file costs no native binding) or the OS keychain; else the single key
 * an older mpsync stored for every address. A command that finds none is told which addresses
 * do have one.
 */
import { MpsyncError } from "../core/errors.js";
import { addressKey, readCredentialsFile } from "./credentials.js";
import type { OpenKeychain } from "./keychain.js";
import type { Env } from "./paths.js";

/** Where a key in effect came from. */
export type KeySource = "env" | "keychain" | "file";

/** The key in effect and where it came from. */
export interface ResolvedApiKey {
  key: string;
  source: KeySource;
  /** The address a stored key is for; undefined for MP_API_KEY and for an older any-address key. */
  baseUrl?: string;
  /** The store as a user names it: `MP_API_KEY`, the keychain's name, or the file's path. */
  store: string;
  /** A credentials-file permission warning, when the key came from a loose file. */
  warning?: string;
}

/** The key in effect for `baseUrl`; undefined when no store has one. Throws CONFIG_INVALID on a corrupt file. */
export async function resolveApiKey(env: Env, baseUrl: string, openKeychain: OpenKeychain): Promise<ResolvedApiKey | undefined> {
  const fromEnv = env["MP_API_KEY"]?.trim();
  if (fromEnv !== undefined && fromEnv !== "") return { key: fromEnv, source: "env", store: "MP_API_KEY" };
  const address = addressKey(baseUrl);
  const file = await readCredentialsFile(env);
  const warning = file?.warning === undefined ? {} : { warning: file.warning };
  const own = file?.keys[address];
  if (file !== undefined && own !== undefined) return { key: own, source: "file", baseUrl: address, store: file.path, ...warning };
  const opened = await openKeychain();
  if ("keychain" in opened) {
    const key = await opened.keychain.get(address);
    if (key !== undefined) return { key, source: "keychain", baseUrl: address, store: opened.keychain.name };
  }
  if (file?.anyAddressKey !== undefined) return { key: file.anyAddressKey, source: "file", store: file.path, ...warning };
  return undefined;
}

/** Every address some store holds a key for (file and keychain), sorted, without duplicates. */
export async function storedAddresses(env: Env, openKeychain: OpenKeychain): Promise<string[]> {
  const file = await readCredentialsFile(env).catch(() => undefined);
  const opened = await openKeychain();
  const fromKeychain = "keychain" in opened ? await opened.keychain.addresses() : [];
  return [...new Set([...Object.keys(file?.keys ?? {}), ...fromKeychain])].sort();
}

/**
 * The NO_API_KEY error of `address`: when keys are stored for other addresses, one line naming
 * them and how to choose (`baseUrl` in .syncrc, MPSYNC_BASE_URL), else how to get a key.
 */
export function noApiKeyError(address: string, others: readonly string[]): MpsyncError {
  const here = addressKey(address);
  const elsewhere = others.filter((other) => other !== here);
  if (elsewhere.length === 0) {
    return new MpsyncError("NO_API_KEY", `no API key for ${here}`, { hint: "set MP_API_KEY or run mpsync login" });
  }
  const first = elsewhere[0] ?? "";
  const named = elsewhere.length === 1 ? `one for ${first}` : `keys for ${elsewhere.join(", ")}`;
  return new MpsyncError("NO_API_KEY", `no API key for ${here}, but mpsync login stored ${named}`, {
    hint: `to use ${elsewhere.length === 1 ? "that service" : "one of them"}, set "baseUrl": "${first}" in .syncrc or MPSYNC_BASE_URL=${first}; for ${here}, run mpsync login`,
  });
}
