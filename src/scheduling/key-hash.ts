/** Identifies an API key in memory maps and files without ever storing the key itself. */
import { createHash } from "node:crypto";

/** sha256 of the key, hex: stable across runs, never reversible to the key. */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}
