/**
 * Links of designs as a person reads them. On a loopback service (the emulator) the design's
 * editor and preview addresses name the real service's hosts but lead nowhere: the emulator has
 * no web editor and publishes no preview, so each such link says it is a placeholder.
 */
import { isLoopbackUrl } from "../config/poll-floor.js";

/** Said after a link that leads nowhere. */
export const PLACEHOLDER_NOTE = "a placeholder: the emulator has no web editor";

/** `url`, marked as a placeholder when the service at `baseUrl` is the emulator. */
export function shownLink(baseUrl: string, url: string): string {
  return isLoopbackUrl(baseUrl) ? `${url} (${PLACEHOLDER_NOTE})` : url;
}
