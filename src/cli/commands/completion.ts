/**
 * `mpsync completion bash|zsh|fish`: a completion script for the shell, generated from the
 * commands and options the program really defines (every command module is loaded here, so
 * the script never drifts from `--help`).
 */
import type { Command } from "commander";
import { MpsyncError } from "../../core/errors.js";
import { EXIT } from "../exit-codes.js";
import { buildFullProgram, type ExitHolder } from "../program.js";
import type { CliIo } from "../context.js";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

interface Spec {
  name: string;
  description: string;
  options: string[];
}

/** Registers `completion`. */
export function registerCompletion(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish)")
    .argument("<shell>", SHELLS.join(", "))
    .addHelpText(
      "after",
      '\nExamples:\n  $ echo \'source <(mpsync completion bash)\' >> ~/.bashrc\n  $ echo \'source <(mpsync completion zsh)\' >> ~/.zshrc\n  $ mpsync completion fish > ~/.config/fish/completions/mpsync.fish',
    )
    .action(async (shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        const err = new MpsyncError("USAGE", `unknown shell "${shell}"`, { hint: `use one of: ${SHELLS.join(", ")}` });
        io.stderr.write(`✗ ${err.message}; ${err.hint ?? ""}\n`);
        exit.code = EXIT.usage;
        return;
      }
      const full = await buildFullProgram(io, { code: 0 });
      const specs: Spec[] = full.commands.map((c) => ({ name: c.name(), description: c.description(), options: c.options.map((o) => o.long ?? o.short ?? "").filter((f) => f !== "") }));
      const globals = full.options.map((o) => o.long ?? "").filter((f) => f !== "");
      io.stdout.write(script(shell as Shell, specs, globals));
    });
}

function script(shell: Shell, specs: Spec[], globals: string[]): string {
  if (shell === "fish") return fish(specs, globals);
  const bash = bashScript(specs, globals);
  // zsh runs the bash function through its bash-completion layer.
  return shell === "zsh" ? `autoload -U +X bashcompinit && bashcompinit\n${bash}` : bash;
}

function bashScript(specs: Spec[], globals: string[]): string {
  const cases = specs.map((s) => `    ${s.name}) opts="${[...s.options, ...globals].join(" ")}" ;;`).join("\n");
  return `# mpsync completion (bash): source <(mpsync completion bash)
_mpsync() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" opts=""
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${specs.map((s) => s.name).join(" ")} ${globals.join(" ")}" -- "$cur"))
    return
  fi
  case "$cmd" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -d -- "$cur"))
  fi
}
complete -o filenames -F _mpsync mpsync
`;
}

function fish(specs: Spec[], globals: string[]): string {
  const q = (s: string): string => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const lines = ["# mpsync completion (fish): mpsync completion fish > ~/.config/fish/completions/mpsync.fish", "complete -c mpsync -f"];
  for (const s of specs) lines.push(`complete -c mpsync -n __fish_use_subcommand -a ${s.name} -d ${q(s.description)}`);
  for (const g of globals) lines.push(`complete -c mpsync -l ${g.replace(/^--/, "")}`);
  for (const s of specs) for (const o of s.options) if (o.startsWith("--")) lines.push(`complete -c mpsync -n '__fish_seen_subcommand_from ${s.name}' -l ${o.slice(2)}`);
  return `${lines.join("\n")}\n`;
}
