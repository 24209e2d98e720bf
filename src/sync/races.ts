/**
 * Another writer's PATCH landed over ours (the API has no compare-and-swap). Two people save
 * the same file within a moment: both read the old text, both PATCH, the later write wins, and
 * both clients were answered 200. The loser's next read of that artifact shows a text without
 * its edit while its answered PATCH is still unsettled (base-ledger.ts, RACE_WINDOW_MS).
 *
 * Pulling that text would drop the edit into `.mpsync/backups/` without a word. Instead the
 * path is reconciled from what our PATCH replaced (`previous`): our text and the winner's are
 * then two changes of one ancestor, so the merge policy writes both (a clean merge is pushed
 * again and said: "re-applied your edit") or markers and a conflict event. A remote text that
 * already holds the edit (a teammate built on it) is no race and is pulled as usual.
 */
import type { BaseLedger, LandedPush } from "./base-ledger.js";
import { holdsEdit } from "./holds-edit.js";
import type { FileTriple } from "./model.js";
import type { BaseTexts } from "./ports.js";

/**
 * The text a landed push's edit was made on (undefined: its stored text is missing): what the
 * PATCH replaced, or, where the service had no such file, the last synced text the edit was
 * made on (`basis`: an edit pushed over a remote deletion; judged against an empty file, a
 * teammate's text sharing most old lines passed for one built on the edit, and the edit was
 * lost: the model, [generate removing Button.tsx, sameMoment Button.tsx]); "" for a new file.
 */
export async function editBase(landed: LandedPush, bases: BaseTexts): Promise<string | undefined> {
  if (landed.previous !== null) return bases.getBase(landed.previous);
  return landed.basis === undefined ? "" : bases.getBase(landed.basis);
}

/**
 * Rebases each raced path's triple on what our PATCH replaced (in place); returns those paths.
 * A path whose stored texts are missing keeps its base (the pull backs the file up as before).
 */
export async function rebaseRaces(files: FileTriple[], ledger: BaseLedger, remoteTexts: ReadonlyMap<string, string>, bases: BaseTexts): Promise<Set<string>> {
  const raced = new Set<string>();
  const suspects = ledger.suspects();
  if (suspects.size === 0) return raced;
  for (const triple of files) {
    const landed = suspects.get(triple.path);
    const now = remoteTexts.get(triple.path);
    if (landed === undefined || now === undefined) continue;
    const sent = await bases.getBase(landed.hash);
    const before = await editBase(landed, bases);
    if (sent === undefined || before === undefined || holdsEdit(before, sent, now)) continue;
    // Reconciled against the text the edit was judged on (what it replaced, else its basis).
    triple.base = landed.previous ?? landed.basis;
    raced.add(triple.path);
  }
  return raced;
}
