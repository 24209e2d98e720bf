/** The config layer: `.syncrc` schema, loading with precedence, writing, API key, per-user paths. */
export { ConfigInvalidError, ConfigMissingError } from "./config-error.js";
export { addDesignMapping, toConfigRelativeDir, writeConfig, type AddedMapping } from "./write-config.js";
export {
  CONFIG_FILE_NAMES,
  displayPath,
  findConfigFile,
  loadConfig,
  resolveConfig,
  type ConfigOverrides,
  type LoadConfigOptions,
  type LoadedConfig,
  type ResolvedConfig,
  type ResolvedDesign,
} from "./load-config.js";
export { readStoredApiKey, removeStoredApiKey, storeApiKey, type StoredApiKey } from "./credentials.js";
export { resolveApiKey, type KeySource, type ResolvedApiKey } from "./api-key.js";
export { buildSyncrcJsonSchema, SYNCRC_SCHEMA_ID } from "./json-schema.js";
export { configHome, credentialsPath, stateHome, type Env } from "./paths.js";
export { checkPollFloor, isLoopbackUrl, minPollIntervalSecFor, MIN_LOOPBACK_POLL_INTERVAL_SEC, MIN_POLL_INTERVAL_SEC } from "./poll-floor.js";
export {
  API_KEY_IN_SYNCRC_MESSAGE,
  DEFAULT_BASE_URL,
  LOG_LEVELS,
  MAX_POLL_INTERVAL_SEC,
  ON_CONFLICT_MODES,
  syncrcSchema,
  type DesignMapping,
  type LogLevel,
  type OnConflict,
  type Syncrc,
  type SyncrcInput,
} from "./schema.js";
export { parseSyncrcText, validateSyncrc } from "./validate-syncrc.js";
