/**
 * A local deletion, said when a daemon's cycle first finds it: the API has no delete, so the
 * service keeps the file, and a person who removed it (`rm`, a `git checkout`) learns that at
 * once and how to bring it back, not only from `mpsync status`. Said once per deletion: a file
 * that comes back (restored, saved again, pulled) is said again when it is deleted again.
 */
import { mapBounded } from "../local/bounded.js";
import type { CycleContext } from "./cycle-context.js";
import { plural } from "./cycle-events.js";
import type { SyncPlan } from "./model.js";

/** Deletions said looked at again per cycle at once (a read that finds nothing is cheap). */
const LOOK_CONCURRENCY = 16;
/** Names a `deleted` line spells out; the rest are counted. */
const NAMED_MAX = 3;

/** Emits one `deleted` event for the local deletions `plan` found that were not said yet. */
export async function sayDeletions(ctx: CycleContext, plan: SyncPlan): Promise<void> {
  const { announced, options: o } = ctx;
  const found = plan.actions.filter((a) => a.kind === "report" && a.reason === "deleted-locally").map((a) => a.path);
  const again = new Set(found);
  // A push pass looks only at what changed: a deletion said before and not among its paths is
  // still a deletion unless its file is there again.
  const maybeBack = announced.announcedDeletions().filter((p) => !again.has(p));
  await mapBounded(maybeBack, LOOK_CONCURRENCY, async (p) => {
    if ((await o.local.read(p).catch(() => undefined)) !== undefined) announced.fileReturned(p);
  });
  const fresh = announced.newDeletions(found);
  if (fresh.length === 0) return;
  o.emit({ event: "deleted", dir: o.dir, editorId: ctx.editorId, files: fresh, message: deletionLine(fresh) });
}

/** The one line of a `deleted` event. */
export function deletionLine(paths: readonly string[]): string {
  const named = paths.slice(0, NAMED_MAX).join(", ");
  const more = paths.length > NAMED_MAX ? ` and ${plural(paths.length - NAMED_MAX, "more file")}` : "";
  if (paths.length === 1) return `deleted locally: ${named}; the service keeps it (its API cannot delete files): bring it back with mpsync restore ${named}`;
  return `deleted locally: ${named}${more}; the service keeps them (its API cannot delete files): bring one back with mpsync restore PATH`;
}
