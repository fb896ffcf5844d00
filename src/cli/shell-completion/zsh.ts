import { lookup, optionsOf, quote } from "./bash.js";
import { type CompletionCommand, flattenTree } from "./command-tree.js";

/** `name:description` entries for zsh's `_describe`, by command path. */
function describeLookup(
  name: string,
  commands: readonly CompletionCommand[],
  entries: (command: CompletionCommand) => readonly string[],
): string {
  const cases = commands
    .map(
      (command) =>
        `    ${quote(command.path)}) entries=(${entries(command).map(quote).join(" ")}) ;;`,
    )
    .join("\n");
  return `${name}() {\n  local -a entries\n  case $1 in\n${cases}\n  esac\n  (( \${#entries} )) && _describe -t ${name.replace(/^_closer_describe_/, "")} ${quote(name.replace(/^_closer_describe_/, ""))} entries\n}`;
}

function entry(name: string, description: string): string {
  return `${name.replaceAll(":", "\\:")}:${description}`;
}

/** `closer completion zsh` (docs/cli.md#completion). */
export function renderZshScript(root: CompletionCommand): string {
  const commands = flattenTree(root);
  const agentPaths = commands
    .filter((command) => command.takesAgent)
    .map((command) => command.path);
  return `#compdef closer
# closer completion for zsh (docs/cli.md#completion)
# Install: closer completion zsh > "\${fpath[1]}/_closer" (then start a new shell),
# or add to ~/.zshrc after compinit: source <(closer completion zsh)

${lookup("_closer_subcommands", commands, (command) => command.subcommands.map((sub) => sub.name))}

${lookup("_closer_valued", commands, (command) =>
  command.options.filter((option) => option.value !== "none").flatMap((option) => option.names),
)}

${lookup("_closer_operands", commands, (command) => command.operands)}

${describeLookup("_closer_describe_commands", commands, (command) =>
  command.subcommands.map((sub) => entry(sub.name, sub.summary)),
)}

${describeLookup("_closer_describe_options", commands, (command) =>
  command.options.flatMap((option) => option.names.map((name) => entry(name, option.description))),
)}

# The agents of the project: the folders of .agent/ (of --cwd when given) that hold an agent.json.
_closer_agents() {
  local dir=. i folder
  for ((i = 2; i < CURRENT; i++)); do
    [[ \${words[i]} == --cwd ]] && dir=\${words[i + 1]}
  done
  for folder in "$dir"/.agent/*(N/); do
    [[ -f $folder/agent.json ]] && print -r -- \${folder:t}
  done
}

_closer() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT - 1]}
  local cmdpath="" word i skip=0 operands=0
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
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
  case " ${optionsOf(commands, "dir")} " in *" $prev "*) _files -/; return ;; esac
  case " ${optionsOf(commands, "file")} " in *" $prev "*) _files; return ;; esac
  [[ " $(_closer_valued "$cmdpath") " == *" $prev "* ]] && return 1
  if [[ $cur == -* ]]; then
    _closer_describe_options "$cmdpath"
    return
  fi
  _closer_describe_commands "$cmdpath"
  if ((operands == 0)); then
    local -a more
    more=(\${=$(_closer_operands "$cmdpath")})
    case $cmdpath in ${agentPaths.map(quote).join("|")}) more+=(\${(f)"$(_closer_agents)"}) ;; esac
    (( \${#more} )) && compadd -a more
  fi
}

if [[ \${funcstack[1]} == _closer ]]; then
  _closer "$@"
else
  compdef _closer closer
fi
`;
}
