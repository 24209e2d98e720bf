/**
 * Per-user folders (XDG Base Directory): credentials under the config home, poll and
 * generation ledgers under the state home. The environment is a parameter.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** The environment as seen by this module. */
export type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/mpsync`, else `~/.config/mpsync`. */
export function configHome(env: Env): string {
  return join(xdgBase(env, "XDG_CONFIG_HOME") ?? join(homeDir(env), ".config"), "mpsync");
}

/** `$XDG_STATE_HOME/mpsync`, else `~/.local/state/mpsync` (poll and generation ledgers). */
export function stateHome(env: Env): string {
  return join(xdgBase(env, "XDG_STATE_HOME") ?? join(homeDir(env), ".local", "state"), "mpsync");
}

/** The credentials file that `mpsync login` writes. */
export function credentialsPath(env: Env): string {
  return join(configHome(env), "credentials.json");
}

function xdgBase(env: Env, name: string): string | undefined {
  const value = env[name];
  // The XDG spec: a relative path is invalid and must be ignored.
  return value !== undefined && isAbsolute(value) ? value : undefined;
}

function homeDir(env: Env): string {
  const home = env["HOME"];
  return home !== undefined && isAbsolute(home) ? home : homedir();
}
