/**
 * The credentials file (README, "The API key"): where `mpsync login` keeps keys when no keychain
 * answers (mode 0600 in a 0700 folder), one key per service address, and where older versions
 * kept theirs. The key never appears in a message.
 */
import { chmod, mkdir, readFile, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { MpsyncError, isErrno } from "../core/errors.js";
import { writeJsonAtomically } from "../local/atomic-write.js";
import { credentialsPath, type Env } from "./paths.js";

/** A key read from the credentials file. */
export interface StoredApiKey {
  key: string;
  /** Absolute path of the credentials file. */
  path: string;
  /** The service address the key was stored for; undefined for a key stored by an older mpsync (any address). */
  baseUrl?: string;
  /** Set when the file is readable by group or others (not fatal: the user is told how to fix it). */
  warning?: string;
}

/** The file: one key per service address (`keys`), and the single key older versions wrote. */
interface CredentialsFile {
  apiKey?: string;
  keys: Record<string, string>;
}

/** The form an address is stored under: no trailing slash. */
export function addressKey(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, "");
}

/**
 * Reads the key stored for `baseUrl` (or, when none was, the key an older mpsync stored for
 * every address); undefined when there is none. Throws CONFIG_INVALID on a corrupt file.
 */
export async function readStoredApiKey(env: Env, baseUrl?: string): Promise<StoredApiKey | undefined> {
  const path = credentialsPath(env);
  const file = await readCredentials(path);
  if (file === undefined) return undefined;
  const forAddress = baseUrl === undefined ? undefined : file.keys[addressKey(baseUrl)];
  const key = forAddress ?? file.apiKey;
  if (key === undefined) return undefined;
  const warning = await permissionWarning(path);
  return { key, path, ...(forAddress === undefined ? {} : { baseUrl: addressKey(baseUrl!) }), ...(warning === undefined ? {} : { warning }) };
}

/**
 * Stores `key` for `baseUrl` (each service address keeps its own: a key for the emulator never
 * replaces the real service's): mode 0600, folder 0700, atomic. Returns the file's path.
 */
export async function storeApiKey(key: string, env: Env, baseUrl?: string): Promise<string> {
  const trimmed = key.trim();
  if (!isPlausibleKey(trimmed)) {
    throw new MpsyncError("USAGE", "API key is empty or contains whitespace or control characters");
  }
  const path = credentialsPath(env);
  const current = (await readCredentials(path).catch(() => undefined)) ?? { keys: {} };
  const next: CredentialsFile =
    baseUrl === undefined ? { ...current, apiKey: trimmed } : { ...current, keys: { ...current.keys, [addressKey(baseUrl)]: trimmed } };
  const folder = dirname(path);
  await mkdir(dirname(folder), { recursive: true });
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored for an existing folder.
  await chmod(folder, 0o700);
  await writeJsonAtomically(path, compact(next), { mode: 0o600 });
  return path;
}

/**
 * Removes the key used for `baseUrl` (its own, else the older any-address key); without an
 * address, every stored key. The file goes when nothing is left. True when a key was removed.
 */
export async function removeStoredApiKey(env: Env, baseUrl?: string): Promise<boolean> {
  const path = credentialsPath(env);
  const exists = (await stat(path).catch(() => undefined)) !== undefined;
  if (baseUrl === undefined || !exists) {
    await rm(path, { force: true });
    return exists;
  }
  const current = await readCredentials(path).catch(() => undefined);
  if (current === undefined) {
    await rm(path, { force: true });
    return true;
  }
  const address = addressKey(baseUrl);
  const { [address]: own, ...others } = current.keys;
  const next: CredentialsFile = own !== undefined ? { ...current, keys: others } : { keys: others };
  const removed = own !== undefined || current.apiKey !== undefined;
  if (next.apiKey === undefined && Object.keys(next.keys).length === 0) await rm(path, { force: true });
  else await writeJsonAtomically(path, compact(next), { mode: 0o600 });
  return removed;
}

/** What the credentials file holds, read once. */
export interface CredentialsFileContent {
  /** Absolute path of the file. */
  path: string;
  /** One key per service address (the form `addressKey` gives). */
  keys: Record<string, string>;
  /** The single key an older mpsync stored for every address. */
  anyAddressKey?: string;
  /** Set when the file is readable by group or others. */
  warning?: string;
}

/** The file's keys; undefined when there is no file. Throws CONFIG_INVALID on a corrupt file. */
export async function readCredentialsFile(env: Env): Promise<CredentialsFileContent | undefined> {
  const path = credentialsPath(env);
  const file = await readCredentials(path);
  if (file === undefined) return undefined;
  const warning = await permissionWarning(path);
  return {
    path,
    keys: file.keys,
    ...(file.apiKey === undefined ? {} : { anyAddressKey: file.apiKey }),
    ...(warning === undefined ? {} : { warning }),
  };
}

/**
 * Removes the keys of `addresses` (and the any-address key when `anyAddress`) from the file,
 * which goes when nothing is left: the keys moved to the keychain.
 */
export async function removeFileKeys(env: Env, addresses: readonly string[], anyAddress: boolean): Promise<void> {
  const path = credentialsPath(env);
  const current = await readCredentials(path);
  if (current === undefined) return;
  const keys = Object.fromEntries(Object.entries(current.keys).filter(([address]) => !addresses.includes(address)));
  const next: CredentialsFile = anyAddress || current.apiKey === undefined ? { keys } : { apiKey: current.apiKey, keys };
  if (next.apiKey === undefined && Object.keys(next.keys).length === 0) await rm(path, { force: true });
  else await writeJsonAtomically(path, compact(next), { mode: 0o600 });
}

/** The file as written: no empty `keys`. */
function compact(file: CredentialsFile): { apiKey?: string; keys?: Record<string, string> } {
  return Object.keys(file.keys).length === 0 ? { ...(file.apiKey === undefined ? {} : { apiKey: file.apiKey }) } : file;
}

async function readCredentials(path: string): Promise<CredentialsFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw new MpsyncError("CONFIG_INVALID", `cannot read the credentials file ${path}: run "mpsync login" again`, { cause: error });
  }
  const file = parseCredentials(text);
  // No cause and no content: the file may hold a key, which must not reach logs.
  if (file === undefined) throw new MpsyncError("CONFIG_INVALID", `credentials file ${path} is not valid: run "mpsync login" again`);
  return file;
}

function parseCredentials(text: string): CredentialsFile | undefined {
  try {
    const value = JSON.parse(text) as { apiKey?: unknown; keys?: unknown } | null;
    if (value === null || typeof value !== "object") return undefined;
    const keys: Record<string, string> = {};
    if (value.keys !== undefined) {
      if (typeof value.keys !== "object" || value.keys === null) return undefined;
      for (const [address, key] of Object.entries(value.keys)) {
        if (typeof key !== "string" || !isPlausibleKey(key.trim())) return undefined;
        keys[address] = key.trim();
      }
    }
    const apiKey = typeof value.apiKey === "string" && isPlausibleKey(value.apiKey.trim()) ? value.apiKey.trim() : undefined;
    if (value.apiKey !== undefined && apiKey === undefined) return undefined;
    if (apiKey === undefined && Object.keys(keys).length === 0) return undefined;
    return apiKey === undefined ? { keys } : { apiKey, keys };
  } catch {
    return undefined;
  }
}

/** A key that can go into an HTTP header: no whitespace or control characters. */
export function isPlausibleKey(key: string): boolean {
  // A key goes into an HTTP header: whitespace or control characters would break or smuggle.
  return key.length > 0 && !/[\s\p{Cc}]/u.test(key);
}

async function permissionWarning(path: string): Promise<string | undefined> {
  // Windows has no POSIX modes: stat reports 0o666 there, which says nothing.
  if (process.platform === "win32") return undefined;
  const mode = (await stat(path)).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `credentials file ${path} is readable by other users (mode ${mode.toString(8).padStart(4, "0")}): run "chmod 600 ${path}"`;
}
