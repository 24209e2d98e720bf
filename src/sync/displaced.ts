/**
 * Displaced edits (an answered edit must never vanish unsaid): a PATCH was answered on one
 * version, then a new version (a generation started just before the PATCH landed, or a
 * teammate's pick) lacks it. A text the version still has is judged as any other writer's
 * (other-writers.ts: a race merges the edit back, races.ts); what remains here is what cannot be
 * merged back: a file the PATCH created that the version lacks (removed with the version, its
 * copy backed up), and an edit whose stored texts are gone. The pull goes ahead and the user is
 * told: a `conflict` event naming what was lost and the backup.
 */
import type { BaseLedger } from "./base-ledger.js";
import type { BaseTexts } from "./ports.js";
import { holdsEdit } from "./holds-edit.js";
import { editBase } from "./observe-cycle.js";
import type { SyncPlan } from "./model.js";

/** One displaced edit: the lines it added that the new version lacks, and whether the file went. */
export interface DisplacedEdit {
  lost: string[];
  /** The new version has no such file: the local copy is removed (backed up). */
  removed: boolean;
}

/**
 * Paths the plan pulls over, removes or merges, where the file still holds a PATCH answered on
 * another version than the active one, the active version lacks that edit, and it could not
 * have seen it (no idle status, prompt or version choice after the answer: other-writers.ts). A version built
 * on the edit is not reported, even when it rewrote the lines next to it (holdsEdit).
 */
export async function findDisplaced(
  plan: SyncPlan,
  ledger: BaseLedger,
  remote: { artifactId: string; texts: ReadonlyMap<string, string> },
  bases: BaseTexts,
): Promise<Map<string, DisplacedEdit>> {
  const out = new Map<string, DisplacedEdit>();
  for (const a of plan.actions) {
    // The file as the last sync left it (pull, removal), or edited since (a conflict: the merge
    // takes the new version's side where it dropped the edit, so that loss is reported too).
    const held = a.kind === "pull" || a.kind === "remove-local" ? a.expectLocal : a.kind === "conflict" ? a.base : undefined;
    if (held === undefined) continue;
    const landed = ledger.landedElsewhere(a.path, remote.artifactId);
    const now = a.kind === "remove-local" ? "" : remote.texts.get(a.path);
    // A version started after the edit was visible (other-writers.ts): the version's decision.
    // A merged-back edit removed again: that removal stands and is said once (races.ts, removedAgain).
    if (landed === undefined || landed.hash !== held || now === undefined || landed.visible === true || landed.mergedBack === true) continue;
    const sent = await bases.getBase(landed.hash);
    const before = await editBase(landed, bases);
    if (sent === undefined || before === undefined || holdsEdit(before, sent, now)) continue;
    out.set(a.path, { lost: addedLines(before, sent, now), removed: a.kind === "remove-local" });
  }
  return out;
}

/** Lines `sent` added to `before` that `now` does not hold, in order. */
function addedLines(before: string, sent: string, now: string): string[] {
  const had = new Set(before.split("\n").map((l) => l.trim()));
  const has = new Set(now.split("\n").map((l) => l.trim()));
  return sent
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !had.has(l) && !has.has(l));
}
