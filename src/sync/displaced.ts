/**
 * Displaced edits (issue 11): a PATCH was answered on one version, then a new version (a
 * generation started just before the PATCH landed, or a teammate's pick) replaces the file
 * without that edit. The pull goes ahead (the new version wins, as for any generation), the
 * local copy is backed up as usual, and the user is told: a `conflict` event naming the backup
 * and the restore command. Silence here would hide an edit the service once acknowledged.
 */
import type { BaseLedger } from "./base-ledger.js";
import type { BaseTexts } from "./ports.js";
import { mergeText } from "./merge.js";
import type { SyncPlan } from "./model.js";

/**
 * Paths the plan pulls over a file that still holds a PATCH answered on `oldArtifactId`,
 * where the new version lacks that edit: merging the edit into the new content (against what
 * the PATCH replaced) would change it. A version built on the edit merges back to itself and is
 * not reported; one that rewrote the very lines of the edit is (a false alarm costs one line,
 * a missed one costs the edit).
 */
export async function findDisplaced(
  plan: SyncPlan,
  ledger: BaseLedger,
  oldArtifactId: string | undefined,
  remote: { artifactId: string; texts: ReadonlyMap<string, string> },
  bases: BaseTexts,
): Promise<Set<string>> {
  const out = new Set<string>();
  if (oldArtifactId === undefined || remote.artifactId === oldArtifactId) return out;
  for (const a of plan.actions) {
    if (a.kind !== "pull" || a.expectLocal === undefined) continue;
    const landed = ledger.landedOn(a.path, oldArtifactId);
    const now = remote.texts.get(a.path);
    if (landed === undefined || landed.hash !== a.expectLocal || now === undefined) continue;
    const sent = await bases.getBase(landed.hash);
    const before = landed.previous === null ? "" : await bases.getBase(landed.previous);
    if (sent === undefined || before === undefined) continue;
    const merged = mergeText({ base: before, local: sent, remote: now, remoteLabel: "remote" });
    if (!merged.clean || merged.text !== now) out.add(a.path);
  }
  return out;
}
