/** Declarations of the design commands: init, create, prompt, versions, checkout, snapshot, history, publish. */
import type { Command } from "commander";
import { DEFAULT_HISTORY_BRANCH } from "../../git/history-branch.js";
import type { Declare } from "../action.js";

/** Collects a repeatable option (`--image a --image b`) into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Adds the flags of a design creation (`create`, `init --create`) to `command`. */
function addCreateOptions(command: Command): Command {
  return command
    .option("--name <name>", "name of the new design (default: Untitled)")
    .option("--prompt <text>", "generate the design from this prompt (counts against the generation budget)")
    .option("--template <id-or-url>", "fork this design first (editorId or design URL)")
    .option("--design-system <name-or-id>", "design system: a name, or a ds-... id (see mpsync design-systems)")
    .option("--image <url>", "reference image for the prompt (repeatable)", collect);
}

/** Declares the design commands, in help order. */
export function declareDesignCommands(program: Command, { run }: Declare): void {
  const init = program
    .command("init")
    .description("map a folder to a design in .syncrc (written or extended), then pull the design into it")
    .argument("[dir]", "folder to mirror the design into (default: the current folder)")
    .option("--dir <dir>", "the folder, as other commands take it (same as the [dir] argument)")
    .option("--design <id-or-url>", "an existing design: editorId, or an editor, published or canvas URL")
    .option("--create", "create a new design (blank, or generated with --prompt)")
    .option("--force", "map a non-empty folder: files that differ become conflicts, nothing is overwritten");
  addCreateOptions(init)
    .addHelpText(
      "after",
      `
The API key is never written to .syncrc (set MP_API_KEY or run mpsync login). A new .syncrc
records the service address when it is not the real service (MPSYNC_BASE_URL), and against a
loopback address (the emulator) a status poll every second and a content check every 5 s. A design already mapped in this
.syncrc is refused: one folder per design.

Examples:
  $ mpsync init web --design https://www.magicpatterns.com/c/abc123
  $ mpsync init web --create --name "Landing page"
  $ mpsync init web --create --prompt "a pricing page with three tiers" \\
      --design-system "Acme"`,
    )
    .action(run(async () => (await import("../commands/init.js")).runInit));

  const create = program.command("create").description("create a design (blank, from a template, or generated from a prompt) and print its editorId and URLs");
  addCreateOptions(create)
    .option("--wait", "with --prompt: poll until the generation ends")
    .addHelpText(
      "after",
      `
To mirror it into a folder afterwards: mpsync init DIR --design <editorId>
(or do both at once: mpsync init DIR --create ...).

Examples:
  $ mpsync create --name "Scratch"
  $ mpsync create --prompt "a login form with social buttons" \\
      --image https://example.com/ref.png --wait
  $ mpsync create --template abc123 --design-system ds-0f3c... --json`,
    )
    .action(run(async () => (await import("../commands/create.js")).runCreate));

  program
    .command("prompt")
    .description("send a prompt to the mapped design; with --wait, poll until it is idle and pull the new version")
    .argument("<text>", "what to change, in plain words")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--image <url>", "not supported: the service takes images only when a design is created (use create --image)", collect)
    .option("--wait", "poll until the generation ends (never faster than pollIntervalSec), then pull")
    .addHelpText(
      "after",
      `
A prompt is refused while the design is already generating. Each prompt counts against the
local generation budget (1000 per 10 hours per key). The service takes reference images only
when a design is created: mpsync create --prompt ... --image URL.

Examples:
  $ mpsync prompt "make the header sticky" --wait
  $ mpsync prompt "add a pricing table" --dir web`,
    )
    .action(run(async () => (await import("../commands/prompt.js")).runPrompt));

  program
    .command("versions")
    .description("version history of the mapped design, newest first (* marks the active version)")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--all", "every version, not only the newest 20")
    .addHelpText("after", "\nExamples:\n  $ mpsync versions\n  $ mpsync versions --all --dir web --json")
    .action(run(async () => (await import("../commands/versions.js")).runVersions));

  program
    .command("checkout")
    .description("make an older version active again (as a new version cloned from it), then pull it")
    .argument("<version>", "vN (see mpsync versions) or an artifactId")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--name <name>", 'name of the new version (default: "checkout of vN")')
    .addHelpText(
      "after",
      `
Nothing is lost: local edits are reconciled with the checked-out files like any pull
(conflicts get markers), and every version stays in the history.

Examples:
  $ mpsync checkout v3
  $ mpsync checkout v3 --name "back to the blue header" --dir web`,
    )
    .action(run(async () => (await import("../commands/checkout.js")).runCheckout));

  program
    .command("snapshot")
    .description("save the active version under a name (clones it into a new named version)")
    .argument("<name>", "name shown in the design's timeline")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .addHelpText(
      "after",
      `
The snapshot is taken of the remote active version: run mpsync push first to include local edits.

Examples:
  $ mpsync snapshot "before the redesign"`,
    )
    .action(run(async () => (await import("../commands/checkout.js")).runSnapshot));

  program
    .command("history")
    .description("the design's version history in git")
    .command("export")
    .description(`replay every version as one commit on a branch (default ${DEFAULT_HISTORY_BRANCH}); the work tree, index and current branch are not touched`)
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--into <branch>", "branch to write", DEFAULT_HISTORY_BRANCH)
    .addHelpText(
      "after",
      `\nExamples:\n  $ mpsync history export\n  $ git log -p ${DEFAULT_HISTORY_BRANCH} -- design/\n  $ mpsync history export --dir web --into web-history --json\n\nRe-running adds only the versions not yet on the branch.`,
    )
    .action(run(async () => (await import("../commands/history.js")).runExport));

  program
    .command("publish")
    .description("compile the active version of a mapped design (the folder you are in, the named folders, or --all) so the live preview shows it")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in)")
    .option("--all", "publish every mapped design (needed outside a mapped folder when several are mapped)")
    .addHelpText(
      "after",
      `
Publishing compiles what is on the service: push local edits first. A compile failure prints
the compiler's message and exits 1. The service also makes the published version the active
one and adds an entry to the version history; a running mpsync watch takes that as its own
change (nothing is pulled or pushed because of it).

Inside a mapped folder it publishes that folder's design; elsewhere, with several designs
mapped, name the folders or pass --all (a publish moves each design's active version).

Examples:
  $ mpsync push && mpsync publish
  $ mpsync publish web --json
  $ mpsync publish --all`,
    )
    .action(run(async () => (await import("../commands/publish.js")).runPublish));
}
