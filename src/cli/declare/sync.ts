/** Declarations of the sync commands: pull, push, status, sync, pause, resume, watch, dev. */
import type { Command } from "commander";
import type { Declare } from "../action.js";
import { DEFAULT_DEV_PORT, WATCH_EVENT_NAMES } from "../help-facts.js";

/** Declares the sync commands, in help order. */
export function declareSyncCommands(program: Command, { run }: Declare): void {
  program
    .command("pull")
    .description("bring remote changes into the mapped folders (local edits are reconciled, never discarded)")
    .argument("[dir...]", "mapped folders (default: all)")
    .option("--dry-run", "print the plan, change nothing")
    .option("--force", "proceed past a circuit breaker (mass delete, empty remote, emptied folder)")
    .addHelpText("after", "\nExamples:\n  $ mpsync pull\n  $ mpsync pull web --dry-run\n  $ mpsync pull --force   # after checking why a design was halted")
    .action(run(async () => (await import("../commands/sync-commands.js")).runPull));

  program
    .command("push")
    .description("send local changes (the remote is checked first: its edits are reconciled, never overwritten)")
    .argument("[dir...]", "mapped folders (default: all)")
    .option("--dry-run", "print the plan, change nothing")
    .addHelpText("after", "\nExamples:\n  $ mpsync push\n  $ mpsync push --dry-run --json")
    .action(run(async () => (await import("../commands/sync-commands.js")).runPush));

  program
    .command("status")
    .description("local and remote changes, conflicts, generating or idle, active version, daemon")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in, else all)")
    .option("--watch", "a live view, redrawn every second until Ctrl-C (the service is asked at most once per pollIntervalSec)")
    .addHelpText(
      "after",
      `
Exit codes: 0 in sync or only changes waiting, 1 a design needs attention (halted, deleted
locally, files that should sync and cannot, the service unreachable), 3 the key was refused,
5 conflict markers. What never syncs by design (symbolic links, special files, binary files
the service never held) is listed on one line and does not make status fail.

Examples:
  $ mpsync status
  $ mpsync status --watch
  $ mpsync status --json | jq '.designs[].localChanges'`,
    )
    .action(run(async () => (await import("../commands/status.js")).runStatus));

  program
    .command("sync")
    .description("pull and push now; with mpsync watch running, the daemon runs a full cycle now and this waits for it")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in, else all)")
    .addHelpText(
      "after",
      `
Like Mutagen's sync flush: local and remote changes both go through now. Without a daemon this
command takes the folder's lock and runs the cycle itself; waits while the design generates.
A paused folder is refused: mpsync resume it first.

Examples:
  $ mpsync sync
  $ mpsync sync web --json`,
    )
    .action(run(async () => (await import("../commands/controls.js")).runSync));

  program
    .command("pause")
    .description("hold a folder's sync (a running mpsync watch syncs nothing of it) until mpsync resume")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in, else all)")
    .addHelpText(
      "after",
      "\nThe pause is kept in .mpsync/ and outlives the daemon; status shows it.\n\nExamples:\n  $ mpsync pause            # inside web/: hold web during a long refactor\n  $ mpsync pause web admin",
    )
    .action(run(async () => (await import("../commands/controls.js")).runPause));

  program
    .command("resume")
    .description("end a pause: the running mpsync watch syncs what changed meanwhile")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in, else all)")
    .addHelpText("after", "\nExamples:\n  $ mpsync resume\n  $ mpsync resume web")
    .action(run(async () => (await import("../commands/controls.js")).runResume));

  program
    .command("watch")
    .description("two-way sync of every mapping (or the named folders) until Ctrl-C")
    .argument("[dir...]", "mapped folders (default: all)")
    .addHelpText(
      "after",
      `
SIGINT/SIGTERM flush pending pushes for at most 10 s, then pending requests are abandoned; a
second signal exits at once (one that follows the first within 0.5 s, as when \`npm run\`
passes on the terminal's Ctrl-C, counts as the same request). Edits not sent stay on disk
and go out at the next start.

A saved .syncrc is re-read without a signal (SIGHUP does the same): new mappings start,
removed ones stop, running folders restart their sync to take changed settings, and one line
says what changed (baseUrl and logLevel need watch restarted).

A folder stops alone on a 403 or 404, or when its .mpsync/ is removed; when none is left,
watch exits with one line saying why (exit 3 after a 403, else 1).

With --json, stdout is a JSON Lines stream of events (${WATCH_EVENT_NAMES.slice(0, 4).join(", ")},
${WATCH_EVENT_NAMES.slice(4).join(", ")}),
each as json-output.schema.json describes it; logs go to stderr.

Examples:
  $ mpsync watch
  $ mpsync watch web --json > events.jsonl`,
    )
    .action(run(async () => (await import("../commands/watch.js")).runWatch));

  program
    .command("dev")
    .description("watch one mapped folder and serve a live preview of its design on 127.0.0.1 (Vite, React, Tailwind v3, Fast Refresh)")
    .argument("[dir]", "the mapped folder (default: the one you are in, or the only one)")
    .option("--port <n>", `port of the preview (default ${DEFAULT_DEV_PORT}, or a free one when taken; 0: any free one)`)
    .option("--open", "open the preview in the browser")
    .option("--dir <dir>", "the mapped folder (as the other single-design commands take it)")
    .addHelpText(
      "after",
      `
Runs the daemon for the folder exactly as \`watch\` does, from its first second, and serves the
design with Vite and its React plugin: index.tsx mounted into #root (an index.html is provided
when the design has none; nothing is written into the folder), stylesheets through Tailwind v3
with the design's tailwind.config.js, its plugins and its PostCSS config. A saved component
keeps the page's state (Fast Refresh), a saved stylesheet applies in place, a pulled version
reloads the page once all its files are written. The design's package.json is honoured: its
packages at the versions it names are installed with your npm into a per-user cache
(MPSYNC_PREVIEW_CACHE), never into the folder; without one, the service runtime's versions.
The first run fetches Vite and Tailwind there too, beside sync, with progress. Compile and
runtime errors show in the page and as one line here, with the design's file and line.

Examples:
  $ mpsync dev
  $ mpsync dev web --port 3000 --open`,
    )
    .action(run(async () => (await import("../commands/dev.js")).runDev));
}
