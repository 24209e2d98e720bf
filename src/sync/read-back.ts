/**
 * The read after a push (races.ts): the PATCH was answered, but the API has no
 * compare-and-swap, so another writer's PATCH of the same file may have landed just before or
 * after ours. Reading the pushed paths back at once catches the writes that landed over ours
 * before it; the ones that land later are caught by the next read of those paths while the
 * push is unsettled (base-ledger.ts RACE_WINDOW_MS: the daemon's next content check).
 */
import type { V3Client } from "../api/client-types.js";
import { hashContent } from "../core/hash.js";
import type { ExecuteResult } from "./executor.js";

/**
 * Pushes of more files are not read back at once (a first push of a whole folder would read it
 * all again); their unsettled records are judged by the next content check.
 */
export const READ_BACK_MAX_FILES = 500;

/**
 * The pushed paths of `result` whose text on `artifactId` is no longer what was sent. A failed
 * read finds nothing: the next read of those paths judges them.
 */
export async function readBackPushed(client: V3Client, editorId: string, artifactId: string, result: ExecuteResult): Promise<string[]> {
  const { pushed } = result;
  if (pushed.length === 0 || pushed.length > READ_BACK_MAX_FILES) return [];
  const pushedSet = new Set(pushed);
  const sent = new Map<string, string | undefined>();
  // The last move of a path is what it ended as (a merge moves it to the remote, then to the merge).
  for (const b of result.bases) if (pushedSet.has(b.path)) sent.set(b.path, b.hash);
  let files;
  try {
    files = await client.readFiles(editorId, artifactId, pushed);
  } catch {
    return [];
  }
  return files.filter((f) => sent.get(f.name) !== undefined && hashContent(f.content) !== sent.get(f.name)).map((f) => f.name);
}
