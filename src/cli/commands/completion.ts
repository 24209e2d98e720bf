/**
 * `mpsync completion bash|zsh|fish`: a completion script for the shell, generated from the
 * commands and options the program declares (the same declarations `--help` prints, so the
 * script never drifts from it).
 */
import type { Command } from "commander";
import { MpsyncError } from "../../core/errors.js";
import { EXIT } from "../exit-codes.js";
import { COMPLETION_SHELLS } from "../help-facts.js";
import type { CliIo } from "../context.js";

type Shell = (typeof COMPLETION_SHELLS)[number];

interface Spec {
  name: string;
  description: string;
  options: string[];
}

/** `mpsync completion SHELL`: writes the script for `program` (every command is declared there); resolves to the exit code. */
export function printCompletion(io: CliIo, shell: string, program: Command): number {
  if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
    const err = new MpsyncError("USAGE", `unknown shell "${shell}"`, { hint: `use one of: ${COMPLETION_SHELLS.join(", ")}` });
    io.stderr.write(`✗ ${err.message}; ${err.hint ?? ""}\n`);
    return EXIT.usage;
  }
  const specs: Spec[] = program.commands.map((c) => ({
    name: c.name(),
    description: c.description(),
    options: c.options.map((o) => o.long ?? o.short ?? "").filter((f) => f !== ""),
  }));
  const globals = program.options.map((o) => o.long ?? "").filter((f) => f !== "");
  io.stdout.write(script(shell as Shell, specs, globals));
  return EXIT.ok;
}

function script(shell: Shell, specs: Spec[], globals: string[]): string {
  if (shell === "fish") return fish(specs, globals);
  // zsh runs the bash function through its bash-completion layer.
  if (shell === "zsh")
    return `# mpsync completion (zsh): source <(mpsync completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${bashFunction(specs, globals)}`;
  return `# mpsync completion (bash): source <(mpsync completion bash)\n${bashFunction(specs, globals)}`;
}

function bashFunction(specs: Spec[], globals: string[]): string {
  const cases = specs.map((s) => `    ${s.name}) opts="${[...s.options, ...globals].join(" ")}" ;;`).join("\n");
  return `_mpsync() {
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
  for (const s of specs)
    for (const o of s.options) if (o.startsWith("--")) lines.push(`complete -c mpsync -n '__fish_seen_subcommand_from ${s.name}' -l ${o.slice(2)}`);
  return `${lines.join("\n")}\n`;
}
