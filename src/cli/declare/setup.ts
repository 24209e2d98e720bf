/** Declarations of the look-up and set-up commands: design-systems, resolve-url, login, logout, doctor, completion, emulator. */
import type { Command } from "commander";
import type { Declare } from "../action.js";
import { COMPLETION_SHELLS } from "../help-facts.js";
import { collect } from "./design.js";

/** Declares the look-up and set-up commands, in help order. */
export function declareSetupCommands(program: Command, { run, io, exit }: Declare): void {
  program
    .command("design-systems")
    .description("list the design systems available to your key (for --design-system)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ mpsync design-systems\n  $ mpsync create --design-system \\\n      \"$(mpsync design-systems --json | jq -r '.designSystems[0].id')\"",
    )
    .action(run(async () => (await import("../commands/lookup.js")).runDesignSystems));

  program
    .command("resolve-url")
    .description("print the editorId of a design, published or canvas URL")
    .argument("<url>", "e.g. https://www.magicpatterns.com/c/<id>, https://project-x.magicpatterns.app, or a canvas URL")
    .addHelpText(
      "after",
      "\nExamples:\n  $ mpsync resolve-url https://project-acme.magicpatterns.app\n  $ mpsync resolve-url 'https://www.magicpatterns.com/s/abc?nodeIds=def' --json",
    )
    .action(run(async () => (await import("../commands/lookup.js")).runResolveUrl));

  program
    .command("login")
    .description("check an API key against the service and store it in the OS keychain for later commands")
    .option("--base-url <url>", "the service address the key is for (default: .syncrc's baseUrl, MPSYNC_BASE_URL, or the real service)")
    .option("--with-token", "read the key from standard input (scripts, CI), never prompt")
    .option("--move-keys", "move the keys the credentials file holds into the keychain (no key is read)")
    .addHelpText(
      "after",
      `
The key is read without echo on a terminal, or as one line from stdin when piped.
It is stored in the OS keychain (Secret Service, macOS Keychain, Windows Credential
Manager), one entry per service address: a key for the emulator never replaces the real
service's. Where no keychain answers (a server, CI, a container) it goes to
$XDG_CONFIG_HOME/mpsync/credentials.json (mode 0600; default ~/.config/mpsync), and login
says so. MP_API_KEY, when set, wins over a stored key.

Examples:
  $ mpsync login
  $ pass show magicpatterns/api-key | mpsync login
  $ printenv MP_KEY_FROM_CI | mpsync login --with-token
  $ echo demo-key | mpsync login --base-url http://127.0.0.1:4010/api
  $ mpsync login --move-keys`,
    )
    .action(run(async () => (await import("../commands/auth.js")).runLogin));

  program
    .command("logout")
    .description("remove the stored API key (from the keychain and the credentials file)")
    .option("--base-url <url>", "the service address whose key goes (default: the one in effect, as for login)")
    .option("--all", "remove the keys of every address")
    .addHelpText("after", "\nExamples:\n  $ mpsync logout\n  $ mpsync logout --all")
    .action(run(async () => (await import("../commands/auth.js")).runLogout));

  program
    .command("doctor")
    .description("check the config, the API key (GET /v3/health), the service, the clock and every mapped folder")
    .addHelpText(
      "after",
      "\nExits 0 when every check passes, 3 when the key is missing or refused, 1 otherwise.\n\nExamples:\n  $ mpsync doctor\n  $ mpsync doctor --json | jq '.checks[] | select(.ok | not)'",
    )
    .action(run(async () => (await import("../commands/doctor.js")).runDoctor));

  program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish)")
    .argument("<shell>", COMPLETION_SHELLS.join(", "))
    .addHelpText(
      "after",
      "\nExamples:\n  $ echo 'source <(mpsync completion bash)' >> ~/.bashrc\n  $ echo 'source <(mpsync completion zsh)' >> ~/.zshrc\n  $ mpsync completion fish > ~/.config/fish/completions/mpsync.fish",
    )
    // No runtime: the script is written from the program's own declarations.
    .action(async (shell: string, _flags: unknown, command: Command) => {
      exit.code = (await import("../commands/completion.js")).printCompletion(io, shell, command.parent ?? program);
    });

  const emulator = program
    .command("emulator")
    .description("serve a local emulator of the v3 API (no network, no key needed) until Ctrl-C")
    .option("--port <n>", "port to listen on (0: any free port)", "0")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--key <key>", "accept only this API key (repeatable; default: any non-empty key)", collect)
    .option("--generation-ms <n>", "how long a generation takes", "3000")
    .option("--data <file>", "keep designs in this JSON file across restarts")
    .option("--strict-poll", "answer 429 to status polls closer than 60 s, like the real limit")
    .option("--max-body-bytes <n>", "answer 413 to request bodies larger than this (default 64 MiB)")
    .option("--compress <mode>", "auto: compress answers of 1 KiB and more when the client asks (br, gzip, deflate); off: never", "auto")
    .addHelpText(
      "after",
      `
Point mpsync at it with MPSYNC_BASE_URL (or baseUrl in .syncrc); any pollIntervalSec >= 0.05 is
accepted for a loopback address. While it runs, "mpsync emulator web-edit" and "mpsync emulator
generate" play a teammate in its web editor. Its designs' editor and preview links are
placeholders: the emulator has no web editor, and "mpsync dev" previews a folder.

Examples:
  $ mpsync emulator --port 4010 --data .emulator.json
  $ MPSYNC_BASE_URL=http://127.0.0.1:4010/api MP_API_KEY=dev \\
      mpsync create --name Demo`,
    )
    .action(run(async () => (await import("../commands/emulator.js")).runEmulator));

  emulator
    .command("web-edit")
    .description("edit a file of a mapped design in the running emulator's web editor (its active version: no new version)")
    .argument("<file>", "the file, as a path to it or its name in the design")
    .argument("[line]", "the line appended (default: a comment with the time)")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .option("--remove", "remove the file instead")
    .addHelpText(
      "after",
      `
The emulator is the one baseUrl (or MPSYNC_BASE_URL) points at; a running mpsync watch pulls
the edit at its next content check (remoteCheckSec). Edit the same line locally first and the
two edits meet as a conflict.

Examples:
  $ mpsync emulator web-edit site/App.tsx
  $ mpsync emulator web-edit App.tsx "// from the web" --dir site`,
    )
    .action(run(async () => (await import("../commands/emulator-play.js")).runWebEdit));

  emulator
    .command("generate")
    .description("start a generation of a mapped design in the running emulator's web editor, as a teammate's prompt")
    .argument("<prompt>", "what the teammate asks for")
    .option("--dir <dir>", "mapped folder (needed when several are mapped)")
    .addHelpText("after", `\nExamples:\n  $ mpsync emulator generate "add a FAQ section" --dir site`)
    .action(run(async () => (await import("../commands/emulator-play.js")).runGenerate));
}
