/** Declarations of the commands about a folder's files: diff, open, restore, resolve. */
import type { Command } from "commander";
import type { Declare } from "../action.js";

/** Declares diff, open, restore and resolve, in help order. */
export function declareFileCommands(program: Command, { run }: Declare): void {
  program
    .command("diff")
    .description("show local changes as a diff against the last synced version (or the remote); changes nothing")
    .argument("[path...]", "files or folders inside the mapped folder (default: every changed file)")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--remote", "compare with what the service holds now instead of the last synced version")
    .addHelpText("after", "\nExamples:\n  $ mpsync diff\n  $ mpsync diff src/App.tsx --remote\n  $ mpsync diff --json | jq -r '.files[].path'")
    .action(run(async () => (await import("../commands/diff.js")).runDiff));

  program
    .command("open")
    .description("open the mapped design in the web editor (or its published preview) in the browser")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--preview", "the published preview instead of the editor (known once a publish answer named it)")
    .option("--print", "print the address only")
    .addHelpText("after", "\nExamples:\n  $ mpsync open\n  $ mpsync open --preview --dir web\n  $ BROWSER=firefox mpsync open")
    .action(run(async () => (await import("../commands/open.js")).runOpen));

  program
    .command("restore")
    .description("list every copy mpsync holds of a file (backups, conflict sides, last synced version) and put one back")
    .argument("<path>", "the file, as a path from here or inside the mapped folder")
    .option("--dir <dir>", "mapped folder (needed when several are mapped and the path is not inside one)")
    .option("--list", "only list the copies, newest first, and what the folder's backups hold (kept keepBackupsDays days)")
    .option("--from <time>", "restore the newest copy saved at or before TIME (ISO time, or a backup folder name)")
    .option("--copy <file>", "restore the copy whose file --list --json names (one of several saved at once)")
    .option("--force", "restore a copy that would take lines away from the last synced version")
    .addHelpText(
      "after",
      `
Without --from, a file deleted here comes back as its last synced version; any other file as
the newest copy (with nothing newer, the last synced version). The current file (if any) is
backed up first, so a restore can itself be undone. A running watch, or the next push, sends
the restored content: a copy that lacks lines of the last synced version (older than what the
service holds, so the push would take them away there too) is only restored with --force, and
the command says which lines. Backups are kept keepBackupsDays days (.syncrc, default 30; 0:
forever); saved conflicts (.mpsync/conflicts/) are never removed.

Examples:
  $ mpsync restore web/App.tsx --list
  $ mpsync restore web/App.tsx
  $ mpsync restore App.tsx --dir web --from 2026-11-22T15:40:00Z --force
  $ mpsync restore App.tsx --copy .mpsync/conflicts/<time>/App.tsx.remote`,
    )
    .action(run(async () => (await import("../commands/restore.js")).runRestore));

  program
    .command("resolve")
    .description("pick one side of a conflict (from .mpsync/conflicts/), write it, and let it be pushed")
    .argument("[path...]", "the conflicted files, as paths from here or inside the mapped folder")
    .option("--ours", "keep your side (the local text when the conflict happened)")
    .option("--theirs", "keep the service's side")
    .option("--all", "every file that still holds conflict markers (in the mapped folder you are in, or --dir, else all)")
    .option("--dir <dir>", "mapped folder (when several are mapped and the path is not inside one)")
    .addHelpText(
      "after",
      `
The file's current content is backed up first (mpsync restore PATH --list shows it). A running
mpsync watch pushes the result; without one, mpsync push or mpsync sync sends it.

Examples:
  $ mpsync resolve web/App.tsx --theirs
  $ mpsync resolve --all --ours`,
    )
    .action(run(async () => (await import("../commands/resolve.js")).runResolve));
}
