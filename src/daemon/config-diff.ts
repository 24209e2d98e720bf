/**
 * What a reload of .syncrc changes for a running daemon, so a reload never says "reloaded"
 * while changed settings are silently not applied. Pure: the old and new config in, the
 * folders to start, stop and restart and the one line that says so out.
 */
import type { ResolvedConfig } from "../config/load-config.js";

/** A mapping as the daemon runs it. */
export interface MappingRef {
  dir: string;
  design: string;
  root: string;
  /** How the reload's line names it (config/mappings.ts `folderLabel`). */
  label: string;
}

/** Settings a folder's worker reads when it starts: applied by restarting its sync (flush first). */
export const FOLDER_KEYS = ["debounceMs", "ignore", "onConflict", "git.pauseDuringGitOps", "git.commitOnPull", "publishOnPush", "remoteCheckSec"] as const;
/** Settings the running process changes in place. */
export const LIVE_KEYS = ["pollIntervalSec", "concurrency", "keepBackupsDays"] as const;
/** Settings only a new process takes (the client's address and key, the logger). */
export const RESTART_KEYS = ["baseUrl", "logLevel"] as const;

/** What a reload does. */
export interface ReloadPlan<M extends MappingRef = MappingRef> {
  start: M[];
  stop: M[];
  /** Running folders whose sync restarts to take new settings (or a new design). */
  restart: M[];
  /** Folder settings that changed (every running folder restarts for them). */
  folderKeys: string[];
  /** Settings applied in place. */
  liveKeys: string[];
  /** Settings that need `mpsync watch` restarted. */
  restartKeys: string[];
}

/** The keys among `keys` whose value differs between `a` and `b` (dotted paths). */
export function changedKeys(a: ResolvedConfig, b: ResolvedConfig, keys: readonly string[]): string[] {
  const at = (c: ResolvedConfig, path: string): string =>
    JSON.stringify(path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], c));
  return keys.filter((k) => at(a, k) !== at(b, k));
}

/** Plans a reload: `running` are the folders running now, `wanted` the mappings the new config selects. */
export function planReload<M extends MappingRef>(before: ResolvedConfig, after: ResolvedConfig, running: readonly M[], wanted: readonly M[]): ReloadPlan<M> {
  const folderKeys = changedKeys(before, after, FOLDER_KEYS);
  const byRoot = new Map(wanted.map((m) => [m.root, m]));
  const stop = running.filter((r) => !byRoot.has(r.root));
  const runningRoots = new Set(running.map((r) => r.root));
  const start = wanted.filter((m) => !runningRoots.has(m.root));
  const restart = running.flatMap((r) => {
    const next = byRoot.get(r.root);
    return next !== undefined && (folderKeys.length > 0 || next.design !== r.design) ? [next] : [];
  });
  return { start, stop, restart, folderKeys, liveKeys: changedKeys(before, after, LIVE_KEYS), restartKeys: changedKeys(before, after, RESTART_KEYS) };
}

/** The one line a reload prints, or undefined when it changed nothing. */
export function describeReload(plan: ReloadPlan): string | undefined {
  const parts: string[] = [];
  const dirs = (ms: readonly MappingRef[]): string => ms.map((m) => m.label).join(", ");
  if (plan.start.length > 0) parts.push(`started ${dirs(plan.start)}`);
  if (plan.stop.length > 0) parts.push(`stopped ${dirs(plan.stop)}`);
  if (plan.restart.length > 0) {
    const why = plan.folderKeys.length > 0 ? plan.folderKeys.join(", ") : "its design";
    parts.push(`restarted the sync of ${dirs(plan.restart)} to apply ${why}`);
  }
  if (plan.liveKeys.length > 0) parts.push(`applied ${plan.liveKeys.join(", ")}`);
  if (plan.restartKeys.length > 0)
    parts.push(`${plan.restartKeys.join(", ")} ${plan.restartKeys.length === 1 ? "takes" : "take"} effect when mpsync watch is restarted`);
  return parts.length === 0 ? undefined : `reloaded .syncrc: ${parts.join("; ")}`;
}
