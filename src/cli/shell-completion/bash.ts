import { type CompletionCommand, flattenTree } from "./command-tree.js";

/** One `case` of a lookup by command path, each path's words on one line. */
export function lookup(
  name: string,
  commands: readonly CompletionCommand[],
  words: (command: CompletionCommand) => readonly string[],
): string {
  const cases = commands
    .map((command) => `    ${quote(command.path)}) echo ${quote(words(command).join(" "))} ;;`)
    .join("\n");
  return `${name}() {\n  case $1 in\n${cases}\n  esac\n}`;
}

export function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The options of every command whose value is of `kind`, for the whole tree. */
export function optionsOf(commands: readonly CompletionCommand[], kind: "dir" | "file"): string {
  const names = commands.flatMap((command) =>
    command.options.filter((option) => option.value === kind).flatMap((option) => option.names),
  );
  return [...new Set(names)].join(" ");
}

/** `closer completion bash` (docs/cli.md#completion). */
export function renderBashScript(root: CompletionCommand): string {
  const commands = flattenTree(root);
  const agentPaths = commands
    .filter((command) => command.takesAgent)
    .map((command) => command.path);
  return `# closer completion for bash (docs/cli.md#completion)
# Install: closer completion bash > ~/.local/share/bash-completion/completions/closer
# or add to ~/.bashrc: source <(closer completion bash)

${lookup("_closer_subcommands", commands, (command) => command.subcommands.map((sub) => sub.name))}

${lookup("_closer_options", commands, (command) => command.options.flatMap((option) => option.names))}

${lookup("_closer_valued", commands, (command) =>
  command.options.filter((option) => option.value !== "none").flatMap((option) => option.names),
)}

${lookup("_closer_operands", commands, (command) => command.operands)}

# The agents of the project: the folders of .agent/ (of --cwd when given) that hold an agent.json.
_closer_agents() {
  local dir=. i folder
  for ((i = 1; i < COMP_CWORD; i++)); do
    [[ \${COMP_WORDS[i]} == --cwd ]] && dir=\${COMP_WORDS[i + 1]}
  done
  for folder in "$dir"/.agent/*/; do
    [[ -f \${folder}agent.json ]] && basename -- "$folder"
  done
}

_closer() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD - 1]}
  local cmdpath="" word i skip=0 operands=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    if ((skip)); then skip=0; continue; fi
    case $word in
      --*=*) continue ;;
      -*) [[ " $(_closer_valued "$cmdpath") " == *" $word "* ]] && skip=1; continue ;;
    esac
    if [[ " $(_closer_subcommands "$cmdpath") " == *" $word "* ]]; then
      cmdpath=\${cmdpath:+$cmdpath }$word
    else
      operands=$((operands + 1))
    fi
  done
  COMPREPLY=()
  case " ${optionsOf(commands, "dir")} " in *" $prev "*)
    mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
  esac
  case " ${optionsOf(commands, "file")} " in *" $prev "*)
    mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
  esac
  [[ " $(_closer_valued "$cmdpath") " == *" $prev "* ]] && return
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_closer_options "$cmdpath")" -- "$cur")
    return
  fi
  local words
  words="$(_closer_subcommands "$cmdpath")"
  if ((operands == 0)); then
    words="$words $(_closer_operands "$cmdpath")"
    case $cmdpath in ${agentPaths.map(quote).join("|")}) words="$words $(_closer_agents)" ;; esac
  fi
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _closer closer
`;
}
