/** Identifier shapes of the real service (docs/service-facts.md#identifiers), and the key-to-owner hash. */
import { createHash, randomBytes, randomUUID } from "node:crypto";

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** Length of an editorId and a canvasId. */
export const EDITOR_ID_LENGTH = 22;

/** A random string of lowercase letters and digits. */
export function randomLowerAlnum(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  // 256 % 36 != 0 gives a slight bias; irrelevant for opaque ids.
  for (const byte of bytes) out += ID_ALPHABET[byte % ID_ALPHABET.length];
  return out;
}

/** A new editorId: 22 lowercase letters and digits. */
export function newEditorId(): string {
  return randomLowerAlnum(EDITOR_ID_LENGTH);
}

/** A new canvas id (same shape as an editorId). */
export function newCanvasId(): string {
  return randomLowerAlnum(EDITOR_ID_LENGTH);
}

/** A new artifactId or requestId: a UUID. */
export function newUuid(): string {
  return randomUUID();
}

/** A new design-system id: `ds-<uuid>`. */
export function newDesignSystemId(): string {
  return `ds-${randomUUID()}`;
}

/** Published-host slug: the design name in kebab case plus part of the editorId (unique, DNS-safe). */
export function slugFor(name: string, editorId: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 30)
    .replace(/-+$/g, "");
  const suffix = editorId.slice(0, 8);
  return base.length > 0 ? `${base}-${suffix}` : suffix;
}

/**
 * The account of a key. Stored instead of the key so neither the data file nor a snapshot
 * ever holds a credential.
 */
export function ownerOf(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex").slice(0, 32);
}
