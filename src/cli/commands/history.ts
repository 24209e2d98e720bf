/** `mpsync history export`: replay every version as a git commit on a branch (src/git/history-export.ts). */
import { exportHistory, type HistoryExportResult, type IncompleteVersion } from "../../git/history-export.js";
import { DEFAULT_HISTORY_BRANCH } from "../../git/history-branch.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { openReadOnly } from "../../app/folder.js";

interface ExportFlags {
  dir?: string;
  into?: string;
}

/** `mpsync history export`. */
export async function runExport(ctx: CommandContext, flags: ExportFlags): Promise<number> {
  const mapping = await ctx.runtime.singleMapping(flags.dir);
  const sync = await openReadOnly(ctx.runtime, mapping);
  const { out } = ctx;
  const result = await exportHistory({
    client: await ctx.runtime.client(),
    editorId: sync.editorId,
    folderRoot: mapping.root,
    branch: flags.into ?? DEFAULT_HISTORY_BRANCH,
    knownNames: Object.keys(sync.state.files),
    onCommit: (c) => out.info(`${out.c.green("+")} ${c.versionLabel.padEnd(5)} ${out.c.dim(c.sha.slice(0, 12))}  ${c.title}`),
  });
  for (const r of result.refused) out.warn(`${r.versionLabel}: refused remote file name ${JSON.stringify(r.name)}: ${r.reason} (left out)`);
  for (const v of result.incomplete) out.warn(`${v.versionLabel}: its commit lacks ${describeMissing(v)}: no such file in that version`);
  out.result(
    "history",
    {
      ok: true,
      branch: result.branch,
      added: result.added.map((c) => ({ versionLabel: c.versionLabel, sha: c.sha })),
      skipped: result.skipped,
      refused: result.refused,
      incomplete: result.incomplete,
    },
    () => (result.incomplete.length === 0 ? out.success(summary(result)) : out.warn(summary(result))),
  );
  return EXIT.ok;
}

/** "components/Faq (imported by App.tsx)", then "and N more". */
function describeMissing(v: IncompleteVersion): string {
  const named = v.missing.slice(0, MISSING_NAMED).map((m) => `${m.target} (imported by ${m.from})`);
  const more = v.missing.length - named.length;
  return more > 0 ? `${named.join(", ")} and ${more} more` : named.join(", ");
}

/** How many missing imports a version's warning names before "and N more". */
const MISSING_NAMED = 3;

function summary(r: HistoryExportResult): string {
  const folder = r.prefix === "" ? "the repository root" : r.prefix;
  const n = r.added.length;
  const lacking =
    r.incomplete.length === 0
      ? ""
      : `, ${r.incomplete.length === n ? (n === 1 ? "it" : "all of them") : `${r.incomplete.length} of them`} lacking imported files (above)`;
  const added = n === 0 ? `${r.branch}: no differences` : `added ${n} commit${n === 1 ? "" : "s"} to ${r.branch}${lacking}`;
  const skipped = r.skipped > 0 ? ` (${r.skipped} version${r.skipped === 1 ? "" : "s"} already there)` : "";
  return `${added}${skipped}; files under ${folder}`;
}
