/**
 * The three URL shapes resolve-url accepts (docs/service-facts.md#url-shapes): editor
 * `{appUrl}/c/<editorId>[/suffix][?query][#hash]`, published `https://project-<slug>.{publishedHost}`
 * (any path) and canvas `{appUrl}/s/<canvasId>?nodeIds=<nodeId>`. Parsing is pure; lookup is
 * the caller's.
 */
import { badRequest } from "./http-error.js";

/** What a URL points at. */
export type DesignUrlTarget =
  { kind: "editor"; editorId: string } | { kind: "published"; slug: string } | { kind: "canvas"; canvasId: string; nodeId: string | undefined };

/** Hosts the emulator answers for. */
export interface UrlHosts {
  appUrl: string;
  publishedHost: string;
}

/**
 * Parses `raw`; undefined when it is a URL of none of the shapes (404), a 400 when it is not a
 * URL at all. A scheme-less `host/path` is read as https, as users paste them that way.
 */
export function parseDesignUrl(raw: string, hosts: UrlHosts): DesignUrlTarget | undefined {
  const url = parseLenient(raw.trim());
  if (url === undefined) throw badRequest(`url is not a valid URL: ${JSON.stringify(raw)}`);
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const host = url.hostname.toLowerCase();
  const publishedSuffix = `.${hosts.publishedHost.toLowerCase()}`;
  if (host.startsWith("project-") && host.endsWith(publishedSuffix)) {
    const slug = host.slice("project-".length, host.length - publishedSuffix.length);
    return slug.length > 0 && !slug.includes(".") ? { kind: "published", slug } : undefined;
  }
  if (!sameAppHost(host, new URL(hosts.appUrl).hostname.toLowerCase())) return undefined;
  const [first, id] = url.pathname.split("/").filter((s) => s.length > 0);
  if (id === undefined) return undefined;
  const decoded = safeDecode(id);
  if (decoded === undefined) return undefined;
  if (first === "c") return { kind: "editor", editorId: decoded };
  if (first === "s") {
    const nodeId = url.searchParams.get("nodeIds")?.split(",")[0];
    return { kind: "canvas", canvasId: decoded, nodeId };
  }
  return undefined;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function parseLenient(raw: string): URL | undefined {
  if (URL.canParse(raw)) return new URL(raw);
  const withScheme = `https://${raw}`;
  // Only host-looking strings get a scheme: "hello world" stays "not a URL".
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?([/?#]|$)/i.test(raw) && URL.canParse(withScheme)) return new URL(withScheme);
  return undefined;
}

/** `www.example.com` and `example.com` are the same web editor. */
function sameAppHost(host: string, appHost: string): boolean {
  const strip = (h: string): string => (h.startsWith("www.") ? h.slice(4) : h);
  return strip(host) === strip(appHost);
}
