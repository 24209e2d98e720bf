/** Turns a mapping's `design` (editorId or any design/published/canvas URL) into an editorId. */
import type { V3Client } from "../api/client-types.js";

/** True when `design` is a bare id rather than a URL (ids are opaque, but never hold `.` or `/`). */
export function isBareEditorId(design: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(design);
}

/** Adds `https://` to a scheme-less URL such as `project-x.magicpatterns.app`. */
export function normalizeDesignUrl(design: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(design) ? design : `https://${design}`;
}

/**
 * The editorId for `design`; a URL is resolved with resolve-url once and then taken from
 * the state's cache (`sourceDesign` remembers which string the cached id belongs to).
 */
export async function resolveEditorId(
  client: Pick<V3Client, "resolveUrl">,
  design: string,
  cache: { sourceDesign?: string | undefined; editorId?: string | undefined },
): Promise<string> {
  if (isBareEditorId(design)) return design;
  if (cache.sourceDesign === design && cache.editorId !== undefined) return cache.editorId;
  return client.resolveUrl(normalizeDesignUrl(design));
}
