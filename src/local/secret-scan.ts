/**
 * Files a dry run lists as skipped because they look like secrets (`.env`, keys): the user sees
 * what stays home instead of wondering why it is missing from the design.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { looksSecret, type IgnoreMatcher } from "./ignore-rules.js";

const NEVER_WALKED = new Set([".git", "node_modules", ".mpsync"]);
/** Bounded: a dry run must answer at once even in a huge folder. */
const MAX_ENTRIES = 20_000;

/** Relative paths under `root` that look like secrets and that `matcher` keeps out of sync. */
export async function findIgnoredSecrets(root: string, matcher: IgnoreMatcher): Promise<string[]> {
  const found: string[] = [];
  const queue = [""];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_ENTRIES) {
    const rel = queue.shift() ?? "";
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      seen += 1;
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!NEVER_WALKED.has(e.name)) queue.push(path);
      } else if (e.isFile() && looksSecret(path) && matcher.ignores(path)) {
        found.push(path);
      }
    }
  }
  return found.sort();
}
