/**
 * The API key (README, "Configuration"): env MP_API_KEY, else the credentials file written by
 * `mpsync login` (mode 0600 in a 0700 folder). The key never appears in a message.
 */
import { chmod, mkdir, readFile, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { MpsyncError } from "../core/errors.js";
import { writeJsonAtomically } from "../local/atomic-write.js";
import { credentialsPath, type Env } from "./paths.js";

/** A key read from the credentials file. */
export interface StoredApiKey {
  key: string;
  /** Absolute path of the credentials file. */
  path: string;
  /** Set when the file is readable by group or others (not fatal: the user is told how to fix it). */
  warning?: string;
}

/** The key in effect and where it came from. */
export interface ResolvedApiKey {
  key: string;
  source: "env" | "file";
  /** A credentials-file permission warning, when the key came from a loose file. */
  warning?: string;
}

/** Reads the stored key; undefined when there is no credentials file. Throws CONFIG_INVALID on a corrupt file. */
export async function readStoredApiKey(env: Env): Promise<StoredApiKey | undefined> {
  const path = credentialsPath(env);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw new MpsyncError("CONFIG_INVALID", `cannot read the credentials file ${path}: run "mpsync login" again`, { cause: error });
  }
  const key = parseCredentials(text);
  if (key === undefined) {
    // No cause and no content: the file may hold a key, which must not reach logs.
    throw new MpsyncError("CONFIG_INVALID", `credentials file ${path} is not valid: run "mpsync login" again`);
  }
  const warning = await permissionWarning(path);
  return warning === undefined ? { key, path } : { key, path, warning };
}

/** Stores `key` in the credentials file: mode 0600, folder 0700, atomic. Returns the file's path. */
export async function storeApiKey(key: string, env: Env): Promise<string> {
  const trimmed = key.trim();
  if (!isPlausibleKey(trimmed)) {
    throw new MpsyncError("USAGE", "API key is empty or contains whitespace or control characters");
  }
  const path = credentialsPath(env);
  const folder = dirname(path);
  await mkdir(dirname(folder), { recursive: true });
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored for an existing folder.
  await chmod(folder, 0o700);
  await writeJsonAtomically(path, { apiKey: trimmed }, { mode: 0o600 });
  return path;
}

/** Removes the credentials file; true when there was one. */
export async function removeStoredApiKey(env: Env): Promise<boolean> {
  const path = credentialsPath(env);
  const existed = (await stat(path).catch(() => undefined)) !== undefined;
  await rm(path, { force: true });
  return existed;
}

/** The key in effect: MP_API_KEY wins over the credentials file; undefined when neither has one. */
export async function resolveApiKey(env: Env): Promise<ResolvedApiKey | undefined> {
  const fromEnv = env["MP_API_KEY"]?.trim();
  if (fromEnv !== undefined && fromEnv !== "") return { key: fromEnv, source: "env" };
  const stored = await readStoredApiKey(env);
  if (stored === undefined) return undefined;
  return stored.warning === undefined
    ? { key: stored.key, source: "file" }
    : { key: stored.key, source: "file", warning: stored.warning };
}

function parseCredentials(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    const key = (value as { apiKey?: unknown } | null)?.apiKey;
    return typeof key === "string" && isPlausibleKey(key.trim()) ? key.trim() : undefined;
  } catch {
    return undefined;
  }
}

function isPlausibleKey(key: string): boolean {
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
