/**
 * `mpsync doctor` as a use case: the config, the service address every command will use, the
 * API key and the store it came from, the service, the clock and each mapped folder. Returns
 * data; the CLI renders it.
 */
import { ConfigMissingError } from "../config/config-error.js";
import { noApiKeyError, storedAddresses, type ResolvedApiKey } from "../config/api-key.js";
import { readCredentialsFile } from "../config/credentials.js";
import type { LoadedConfig } from "../config/load-config.js";
import { folderLabel } from "../config/mappings.js";
import { credentialsPath } from "../config/paths.js";
import { DEFAULT_BASE_URL } from "../config/schema.js";
import { backupsDirOf, describeBackups, measureBackups } from "../local/backup-retention.js";
import type { Runtime } from "../runtime.js";
import { describeError } from "../sync/describe-error.js";
import { checkFolder, checkService, fail, pass, type DoctorCheck } from "./doctor-checks.js";

export type { DoctorCheck } from "./doctor-checks.js";

/** What `doctor` found; `keyProblem`: no key for the address, or the service refused it (exit 3). */
export interface DoctorReport {
  checks: DoctorCheck[];
  keyProblem: boolean;
}

/** Runs every check in order: config, address, key and its store, service, clock, then each mapped folder. */
export async function runDoctor(runtime: Runtime, cwd: string): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const config = await checkConfig(runtime, checks);
  checks.push(addressCheck(runtime, config));
  checks.push(await storeCheck(runtime));
  const key = await checkKey(runtime, checks);
  const service = await checkService(runtime.baseUrl(), key?.key, () => runtime.clock.now());
  checks.push(...service.checks);
  for (const design of config?.config.designs ?? []) {
    const label = folderLabel(design.root, cwd);
    checks.push(...(await checkFolder(design, label)));
    const backups = await measureBackups(backupsDirOf(design.root));
    checks.push(pass(`backups ${label}`, describeBackups(backups, config?.config.keepBackupsDays ?? 0)));
  }
  return { checks, keyProblem: key === undefined || service.keyRefused };
}

async function checkConfig(runtime: Runtime, checks: DoctorCheck[]): Promise<LoadedConfig | undefined> {
  try {
    const loaded = await runtime.config();
    const n = loaded.config.designs.length;
    const warnings = loaded.warnings.length > 0 ? `; ${loaded.warnings.join("; ")}` : "";
    checks.push(pass("config", `${loaded.path}: valid, ${n} mapped folder${n === 1 ? "" : "s"}, baseUrl ${loaded.config.baseUrl}${warnings}`));
    return loaded;
  } catch (err) {
    const message = describeError(err);
    if (err instanceof ConfigMissingError && err.searched) {
      checks.push(fail("config", message, "map a folder: mpsync init DIR --design ID_OR_URL (or pass --config PATH)"));
    } else {
      checks.push(fail("config", message, "fix the value named above (keys and defaults: .syncrc.example, syncrc.schema.json)"));
    }
    return undefined;
  }
}

/** The address commands send requests to, and which setting chose it. */
function addressCheck(runtime: Runtime, config: LoadedConfig | undefined): DoctorCheck {
  const address = runtime.baseUrl();
  const fromEnv = runtime.options.env["MPSYNC_BASE_URL"];
  const origin =
    fromEnv !== undefined && fromEnv.trim() !== ""
      ? "from MPSYNC_BASE_URL"
      : config !== undefined && address !== DEFAULT_BASE_URL
        ? `from baseUrl in ${config.path}`
        : "the default (the real service): set baseUrl in .syncrc or MPSYNC_BASE_URL for another";
  return pass("address", `${address}, ${origin}`);
}

/** Where `mpsync login` keeps keys on this machine: the keychain, or the file where none answers. */
async function storeCheck(runtime: Runtime): Promise<DoctorCheck> {
  const opened = await runtime.keychain();
  const file = credentialsPath(runtime.options.env);
  const why = "keychain" in opened ? await opened.keychain.whyUnavailable() : opened.unavailable;
  if ("keychain" in opened && why === undefined) return pass("key store", `${opened.keychain.name} answers: mpsync login keeps keys there`);
  return pass("key store", `${why ?? "no keychain"}: mpsync login keeps keys in ${file} (mode 0600)`);
}

async function checkKey(runtime: Runtime, checks: DoctorCheck[]): Promise<ResolvedApiKey | undefined> {
  const address = runtime.baseUrl();
  try {
    const found = await runtime.keyInEffect();
    if (found === undefined) {
      checks.push(await missingKeyCheck(runtime, address));
      return undefined;
    }
    checks.push(pass("api key", describeFound(found)));
    if (found.warning !== undefined) checks.push(fail("credentials permissions", found.warning, `chmod 600 ${found.store}`));
    return found;
  } catch (err) {
    checks.push(fail("api key", describeError(err), "run mpsync login again"));
    return undefined;
  }
}

function describeFound(found: ResolvedApiKey): string {
  if (found.source === "env") return "present, from MP_API_KEY";
  if (found.baseUrl === undefined) return `present, from ${found.store} (stored by an older mpsync for any address)`;
  return `present for ${found.baseUrl}, from ${found.store}`;
}

/** No key for `address`: names the addresses that have one, or says truthfully what holds none. */
async function missingKeyCheck(runtime: Runtime, address: string): Promise<DoctorCheck> {
  const env = runtime.options.env;
  const others = await storedAddresses(env, () => runtime.keychain());
  const error = noApiKeyError(address, others);
  if (others.length > 0) return fail("api key", error.message, error.hint ?? "run mpsync login");
  const path = credentialsPath(env);
  const file = await readCredentialsFile(env).catch(() => undefined);
  const opened = await runtime.keychain();
  const where = [
    "MP_API_KEY is not set",
    file === undefined ? `${path} does not exist` : `${path} holds no key for it`,
    ...("keychain" in opened && (await opened.keychain.whyUnavailable()) === undefined ? [`${opened.keychain.name} holds none`] : []),
  ];
  return fail("api key", `no key for ${address}: ${where.join(", ")}`, "set MP_API_KEY, or run mpsync login");
}
