/**
 * Finding and loading `.syncrc` with its precedence: defaults < file < env (MPSYNC_BASE_URL) <
 * explicit overrides (flags). The environment is a parameter; nothing here reads process.env.
 */
import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { errnoCode } from "../core/errors.js";
import { ConfigInvalidError, ConfigMissingError } from "./config-error.js";
import { formatIssues } from "./format-issues.js";
import { checkPollFloor, checkRemoteCheckFloor } from "./poll-floor.js";
import { syncrcSchema, type DesignMapping, type Syncrc } from "./schema.js";
import { parseSyncrcText, validateSyncrc } from "./validate-syncrc.js";

/** File names searched for, in order of preference within one folder. */
export const CONFIG_FILE_NAMES = [".syncrc", ".syncrc.json"] as const;

/** A mapping with its folder resolved. */
export interface ResolvedDesign extends DesignMapping {
  /** Absolute folder: `dir` resolved against the config file's folder. */
  root: string;
}

/** The effective configuration: defaults, file, env and overrides applied. */
export interface ResolvedConfig extends Omit<Syncrc, "$schema" | "designs"> {
  designs: ResolvedDesign[];
}

/** Settings given explicitly (command-line flags); they beat the file and the environment. */
export type ConfigOverrides = Partial<Omit<Syncrc, "$schema" | "designs" | "git">> & { git?: Partial<Syncrc["git"]> };

/** A loaded configuration and where it came from. */
export interface LoadedConfig {
  /** Absolute path of the config file. */
  path: string;
  /** Its folder, against which `designs[].dir` are resolved. */
  dir: string;
  config: ResolvedConfig;
  /** Things worth telling the user that do not stop loading. */
  warnings: string[];
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Where the search starts and relative paths are resolved. */
  cwd: string;
  /** `--config PATH`: beats MPSYNC_CONFIG and the search. */
  configPath?: string;
  /** The environment (MPSYNC_CONFIG, MPSYNC_BASE_URL). */
  env: Record<string, string | undefined>;
  overrides?: ConfigOverrides;
  /** Names the overrides in messages. @default "command line" */
  overridesLabel?: string;
}

/** Searches `cwd` and then each parent folder for `.syncrc`, then `.syncrc.json`. */
export async function findConfigFile(cwd: string): Promise<string | undefined> {
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    for (const name of CONFIG_FILE_NAMES) {
      if (await isFile(join(folder, name))) return join(folder, name);
    }
    if (dirname(folder) === folder) return undefined;
  }
}

/** Finds, reads, validates and resolves the configuration. Throws ConfigInvalidError (CONFIG_INVALID). */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const { path, warnings } = await locateConfigFile(options);
  const label = displayPath(path, options.cwd);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigInvalidError([`${label}: cannot read the file (${errnoCode(error) ?? (error instanceof Error ? error.message : String(error))})`], {
      cause: error,
    });
  }
  // The floor of an interval depends on the address in effect, MPSYNC_BASE_URL's when set.
  const file = validateSyncrc(parseSyncrcText(text, label), label, { baseUrl: nonEmpty(options.env["MPSYNC_BASE_URL"]) });
  const config = resolveConfig(file, {
    configDir: dirname(path),
    env: options.env,
    fileLabel: label,
    overrides: options.overrides,
    overridesLabel: options.overridesLabel,
  });
  return { path, dir: dirname(path), config, warnings };
}

/**
 * Applies env and overrides to a validated file, checks the poll floor against the effective
 * baseUrl and resolves each design folder. Pure; throws ConfigInvalidError.
 */
export function resolveConfig(
  file: Syncrc,
  options: {
    configDir: string;
    env: Record<string, string | undefined>;
    fileLabel: string;
    overrides?: ConfigOverrides | undefined;
    overridesLabel?: string | undefined;
  },
): ResolvedConfig {
  const overridesLabel = options.overridesLabel ?? "command line";
  const overrides = options.overrides ?? {};
  const problems = [...checkEnv(options.env), ...checkOverrides(overrides, overridesLabel)];
  if (problems.length > 0) throw new ConfigInvalidError(problems);

  const { $schema: _schema, designs, ...settings } = file;
  const envBaseUrl = nonEmpty(options.env["MPSYNC_BASE_URL"]);
  const { git, ...flat } = definedOnly(overrides);
  const merged = { ...settings, ...(envBaseUrl === undefined ? {} : { baseUrl: envBaseUrl }), ...flat };
  const config: ResolvedConfig = {
    ...merged,
    baseUrl: merged.baseUrl.replace(/\/+$/, ""),
    git: { ...settings.git, ...definedOnly(git ?? {}) },
    designs: designs.map((mapping) => ({ ...mapping, root: resolve(options.configDir, mapping.dir) })),
  };

  const baseUrlSource = flat.baseUrl !== undefined ? overridesLabel : envBaseUrl !== undefined ? "MPSYNC_BASE_URL" : undefined;
  const floor = checkPollFloor(config.pollIntervalSec, config.baseUrl, { baseUrlSource });
  if (floor !== undefined) {
    const pollSource = flat.pollIntervalSec !== undefined ? overridesLabel : options.fileLabel;
    throw new ConfigInvalidError([`${pollSource}: ${floor}`]);
  }
  const checkFloor = checkRemoteCheckFloor(config.remoteCheckSec, config.baseUrl);
  if (checkFloor !== undefined) throw new ConfigInvalidError([`${flat.remoteCheckSec !== undefined ? overridesLabel : options.fileLabel}: ${checkFloor}`]);
  return config;
}

/** How a config file is named in messages: relative when inside `cwd`, else absolute. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

async function locateConfigFile(options: LoadConfigOptions): Promise<{ path: string; warnings: string[] }> {
  const explicit = nonEmpty(options.configPath) ?? nonEmpty(options.env["MPSYNC_CONFIG"]);
  if (explicit !== undefined) {
    const source = nonEmpty(options.configPath) !== undefined ? "--config" : "MPSYNC_CONFIG";
    const path = resolve(options.cwd, explicit);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) throw new ConfigMissingError(`${source}: config file ${path} not found`, false);
    if (!info.isFile()) throw new ConfigInvalidError([`${source}: ${path} is not a file`]);
    return { path, warnings: [] };
  }
  const path = await findConfigFile(options.cwd);
  if (path === undefined) {
    throw new ConfigMissingError(`no .syncrc found in ${resolve(options.cwd)} or any parent folder: run "mpsync init" or pass --config`, true);
  }
  const twin = join(dirname(path), ".syncrc.json");
  const warnings = path !== twin && (await isFile(twin)) ? [`both .syncrc and .syncrc.json in ${dirname(path)}: using .syncrc`] : [];
  return { path, warnings };
}

function checkEnv(env: Record<string, string | undefined>): string[] {
  const baseUrl = nonEmpty(env["MPSYNC_BASE_URL"]);
  if (baseUrl === undefined) return [];
  const result = syncrcSchema.shape.baseUrl.safeParse(baseUrl);
  if (result.success) return [];
  return formatIssues(result.error.issues, baseUrl, syncrcSchema.shape.baseUrl).map((line) => `MPSYNC_BASE_URL: ${line}`);
}

function checkOverrides(overrides: ConfigOverrides, label: string): string[] {
  // Defaults of a partial schema would fill keys the caller did not give: only validate here.
  const schema = syncrcSchema.omit({ $schema: true, designs: true }).partial();
  const input = definedOnly(overrides);
  const result = schema.safeParse(input);
  if (result.success) return [];
  return formatIssues(result.error.issues, input, schema).map((line) => `${label}: ${line}`);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}
