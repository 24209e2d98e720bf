/** `mpsync history export`: replay every version as a git commit on a branch (src/git/history-export.ts). */
import type { Command } from "commander";
import { DEFAULT_HISTORY_BRANCH, exportHistory, type HistoryExportResult } from "../../git/history-export.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo, CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { openReadOnly } from "../../app/folder.js";

interface ExportFlags {
  dir?: string;
  into?: string;
}

/** Registers `history` and its `export` subcommand. */
export function registerHistory(program: Command, io: CliIo, exit: ExitHolder): void {
  const history = program.command("history").description("the design's version history in git");
  history
    .command("export")
    .description(`replay every version as one commit on a branch (default ${DEFAULT_HISTORY_BRANCH}); the work tree, index and current branch are not touched`)
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--into <branch>", "branch to write", DEFAULT_HISTORY_BRANCH)
    .addHelpText(
      "after",
      `\nExamples:\n  $ mpsync history export\n  $ git log -p ${DEFAULT_HISTORY_BRANCH} -- design/\n  $ mpsync history export --dir web --into web-history --json\n\nRe-running adds only the versions not yet on the branch.`,
    )
    .action(action(io, exit, (ctx, flags: ExportFlags) => runExport(ctx, flags)));
}

async function runExport(ctx: CommandContext, flags: ExportFlags): Promise<number> {
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
  out.result(
    "history",
    {
      ok: true,
      branch: result.branch,
      added: result.added.map((c) => ({ versionLabel: c.versionLabel, sha: c.sha })),
      skipped: result.skipped,
      refused: result.refused,
    },
    () => out.success(summary(result)),
  );
  return EXIT.ok;
}

function summary(r: HistoryExportResult): string {
  const folder = r.prefix === "" ? "the repository root" : r.prefix;
  const added = r.added.length === 0 ? `${r.branch}: no differences` : `added ${r.added.length} commit${r.added.length === 1 ? "" : "s"} to ${r.branch}`;
  const skipped = r.skipped > 0 ? ` (${r.skipped} version${r.skipped === 1 ? "" : "s"} already there)` : "";
  return `${added}${skipped}; files under ${folder}`;
}
