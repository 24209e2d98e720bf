/** Durations as people read them, shared by the daemon's messages and the CLI. */

/** `1m05s` / `12s`: elapsed times and ages (whole seconds). */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/** `8 s`, `1.5 s`: a retry's delay (tenths below ten seconds). */
export function formatSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}
