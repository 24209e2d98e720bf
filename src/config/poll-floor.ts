/**
 * The poll floor (README, "Configuration" and "Limits"): the real service gets at most one status poll
 * per minute per design; only a loopback address (the emulator, tests) may be polled faster.
 */

/** Lowest `pollIntervalSec` for a non-loopback `baseUrl`. */
export const MIN_POLL_INTERVAL_SEC = 60;

/** Status poll interval against a loopback address when no .syncrc sets one. */
export const LOOPBACK_DEFAULT_POLL_SEC = 1;

/** Content-check interval `init` writes for a loopback address: a teammate's web edit arrives within seconds, as in the demo. */
export const LOOPBACK_DEFAULT_REMOTE_CHECK_SEC = 5;

/** Lowest `pollIntervalSec` for a loopback `baseUrl` (emulator, tests). */
export const MIN_LOOPBACK_POLL_INTERVAL_SEC = 0.05;

/** Lowest `remoteCheckSec` for a non-loopback `baseUrl`: every check reads every file. */
export const MIN_REMOTE_CHECK_SEC = 10;

/**
 * Checks `remoteCheckSec` against its floor for `baseUrl`. Returns the problem as
 * `remoteCheckSec: ...`, or undefined.
 */
export function checkRemoteCheckFloor(remoteCheckSec: number, baseUrl: string): string | undefined {
  if (isLoopbackUrl(baseUrl) ? remoteCheckSec >= MIN_LOOPBACK_POLL_INTERVAL_SEC : remoteCheckSec >= MIN_REMOTE_CHECK_SEC) return undefined;
  const floor = isLoopbackUrl(baseUrl) ? MIN_LOOPBACK_POLL_INTERVAL_SEC : MIN_REMOTE_CHECK_SEC;
  return `remoteCheckSec: ${remoteCheckSec} is below the ${floor} s floor for ${baseUrl} (each check reads every file of the design)`;
}

/** True when `url` points at this machine: 127.0.0.0/8, `localhost` or `[::1]`. A malformed URL is not loopback. */
export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  // The WHATWG parser already normalises `127.1`, `0x7f.0.0.1` and `[0:0::1]` to canonical forms.
  const host = new URL(url).hostname.toLowerCase();
  return host === "localhost" || host === "localhost." || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The lowest poll interval allowed against `baseUrl`, in seconds. */
export function minPollIntervalSecFor(baseUrl: string): number {
  return isLoopbackUrl(baseUrl) ? MIN_LOOPBACK_POLL_INTERVAL_SEC : MIN_POLL_INTERVAL_SEC;
}

/**
 * Checks `pollIntervalSec` against the floor of the effective `baseUrl` (after the
 * MPSYNC_BASE_URL override). Returns the problem as `pollIntervalSec: ...`, or undefined.
 */
export function checkPollFloor(pollIntervalSec: number, baseUrl: string, options: { baseUrlSource?: string } = {}): string | undefined {
  const floor = minPollIntervalSecFor(baseUrl);
  if (pollIntervalSec >= floor) return undefined;
  const from = options.baseUrlSource === undefined ? "" : ` from ${options.baseUrlSource}`;
  const why = floor === MIN_POLL_INTERVAL_SEC ? " (only loopback addresses may poll faster)" : "";
  return `pollIntervalSec: ${pollIntervalSec} is below the ${floor} s floor for ${baseUrl}${from}${why}`;
}
