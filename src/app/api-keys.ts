/**
 * `login` and `logout` as use cases: a key is checked against its service address, then kept
 * in the OS keychain, or in the credentials file where no keychain answers; keys an older
 * mpsync (or a machine without a keychain) left in the file can be moved into the keychain.
 */
import { createClient } from "../api/client.js";
import type { Clock } from "../core/clock.js";
import { hasCode, MpsyncError } from "../core/errors.js";
import { addressKey, readCredentialsFile, removeFileKeys, removeStoredApiKey, storeApiKey } from "../config/credentials.js";
import { KeychainUnavailable, type Keychain, type KeychainOpening } from "../config/keychain.js";
import { credentialsPath, type Env } from "../config/paths.js";
import type { CliDocument } from "./json-documents.js";

/**
 * Where a key was saved, as `login --json` says it (`store`, `location`: the keychain's name or
 * the file's path, `latencyMs`: GET /v3/health's round trip with the new key), and `fellBack`:
 * why the file was used, the one line `login` says (undefined when the keychain took it).
 */
export type SavedKey = Omit<CliDocument<"login">, "ok" | "baseUrl"> & { fellBack?: string };

/** Keys the credentials file holds that could move into the keychain. */
export interface FileKeys {
  path: string;
  addresses: string[];
  /** The file holds the single key an older mpsync stored for every address. */
  anyAddress: boolean;
}

/**
 * Checks `key` against `address` (GET /v3/health) and saves it: in the keychain, whose copy
 * replaces the file's for that address, else in the file. A refused key saves nothing (UNAUTHORIZED).
 */
export async function loginWithKey(o: { env: Env; address: string; key: string; keychain: Promise<KeychainOpening>; clock: Clock }): Promise<SavedKey> {
  const address = addressKey(o.address);
  const latencyMs = await checkKey(address, o.key, o.clock);
  const opened = await o.keychain;
  let fellBack: string;
  if ("keychain" in opened) {
    try {
      await opened.keychain.set(address, o.key.trim());
      await removeFileKeys(o.env, [address], false);
      return { store: "keychain", location: opened.keychain.name, latencyMs };
    } catch (err) {
      fellBack =
        err instanceof KeychainUnavailable ? err.message : `${opened.keychain.name} did not take the key (${err instanceof Error ? err.message : String(err)})`;
    }
  } else {
    fellBack = opened.unavailable;
  }
  const path = await storeApiKey(o.key, o.env, address);
  return { store: "file", location: path, fellBack, latencyMs };
}

async function checkKey(address: string, key: string, clock: Clock): Promise<number> {
  // A client of its own: the runtime's client is bound to the key already in effect.
  const client = createClient({ baseUrl: address, apiKey: key });
  const started = clock.monotonic();
  try {
    await client.health();
  } catch (err) {
    if (hasCode(err, "UNAUTHORIZED", "FORBIDDEN")) {
      // A plain MpsyncError, not the ApiError: the CLI then does not add "the key stored for ...",
      // which would blame the stored key for the one just typed.
      throw new MpsyncError("UNAUTHORIZED", `${address} refused the key you gave: nothing was saved`, {
        hint: "copy the key again from your account settings, API keys",
        cause: err,
      });
    }
    throw err;
  } finally {
    await client.close();
  }
  return clock.monotonic() - started;
}

/**
 * The keys the file holds that could move into the keychain; undefined when none. The
 * any-address key of an older mpsync counts only while `anyAddressTo` has no key of its own.
 */
export async function fileKeysToMove(env: Env, keychain: Promise<KeychainOpening>, anyAddressTo: string): Promise<FileKeys | undefined> {
  const opened = await keychain;
  if (!("keychain" in opened)) return undefined;
  const file = await readCredentialsFile(env).catch(() => undefined);
  if (file === undefined) return undefined;
  const addresses = Object.keys(file.keys).sort();
  const anyAddress = file.anyAddressKey !== undefined && (await anyAddressMoves(file.keys, opened.keychain, addressKey(anyAddressTo)));
  return addresses.length === 0 && !anyAddress ? undefined : { path: file.path, addresses, anyAddress };
}

async function anyAddressMoves(fileKeys: Record<string, string>, keychain: Keychain, target: string): Promise<boolean> {
  return fileKeys[target] === undefined && (await keychain.get(target)) === undefined;
}

/**
 * Moves every key of the file into the keychain; the any-address key of an older mpsync becomes
 * the key of `anyAddressTo` unless that address has one. The file keeps what did not move.
 * Resolves the addresses moved (NO_KEYCHAIN when there is no keychain).
 */
export async function moveFileKeys(env: Env, keychain: Promise<KeychainOpening>, anyAddressTo: string): Promise<string[]> {
  const opened = await keychain;
  if (!("keychain" in opened)) throw new MpsyncError("USAGE", `no keychain to move keys into: ${opened.unavailable}`);
  const file = await readCredentialsFile(env);
  if (file === undefined) return [];
  const moved: string[] = [];
  for (const [address, key] of Object.entries(file.keys)) {
    await opened.keychain.set(address, key);
    moved.push(address);
  }
  const target = addressKey(anyAddressTo);
  let anyMoved = false;
  if (file.anyAddressKey !== undefined && (await anyAddressMoves(file.keys, opened.keychain, target))) {
    await opened.keychain.set(target, file.anyAddressKey);
    moved.push(target);
    anyMoved = true;
  }
  await removeFileKeys(env, moved, anyMoved);
  return moved.sort();
}

/** What `logout` removed. */
export interface RemovedKeys {
  /** Removed from the keychain (its name), or undefined. */
  keychain?: string;
  /** Removed from the file (its path), or undefined. */
  file?: string;
  /** The file's path, said either way. */
  path: string;
}

/** Removes the key of `address` from the keychain and the file; without an address, every key mpsync stored. */
export async function removeApiKeys(env: Env, address: string | undefined, keychain: Promise<KeychainOpening>): Promise<RemovedKeys> {
  const path = credentialsPath(env);
  const opened = await keychain;
  const fromKeychain = "keychain" in opened ? await removeFromKeychain(opened.keychain, address) : false;
  const fromFile = await removeStoredApiKey(env, address === undefined ? undefined : addressKey(address));
  return {
    path,
    ...(fromKeychain && "keychain" in opened ? { keychain: opened.keychain.name } : {}),
    ...(fromFile ? { file: path } : {}),
  };
}

async function removeFromKeychain(keychain: Keychain, address: string | undefined): Promise<boolean> {
  const addresses = address === undefined ? await keychain.addresses() : [addressKey(address)];
  let removed = false;
  for (const each of addresses) if (await keychain.remove(each)) removed = true;
  return removed;
}
