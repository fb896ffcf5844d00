import { type CompletionCommand, flattenTree } from "./command-tree.js";

function quote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/** When the words of `command` are offered: no command yet for closer's own, else its path seen. */
function condition(command: CompletionCommand): string {
  if (command.path === "") return "__fish_use_subcommand";
  return command.path
    .split(" ")
    .map((name) => `__fish_seen_subcommand_from ${name}`)
    .join("; and ");
}

function optionLine(command: CompletionCommand) {
  return (option: CompletionCommand["options"][number]): string => {
    const names = option.names
      .map((name) => (name.startsWith("--") ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`))
      .join(" ");
    const value =
      option.value === "dir"
        ? " -x -a '(__fish_complete_directories)'"
        : option.value === "file"
          ? " -r -F"
          : option.value === "text"
            ? " -x"
            : "";
    return `complete -c closer -n ${quote(condition(command))} ${names}${value} -d ${quote(option.description)}`;
  };
}

/** `closer completion fish` (docs/cli.md#completion). */
export function renderFishScript(root: CompletionCommand): string {
  const commands = flattenTree(root);
  const lines: string[] = [];
  for (const command of commands) {
    const where = quote(condition(command));
    // A command with subcommands offers them until one is given.
    const notYet = command.subcommands.map((sub) => sub.name).join(" ");
    for (const sub of command.subcommands) {
      const guard =
        command.path === ""
          ? where
          : quote(`${condition(command)}; and not __fish_seen_subcommand_from ${notYet}`);
      lines.push(`complete -c closer -n ${guard} -a ${sub.name} -d ${quote(sub.summary)}`);
    }
    lines.push(...command.options.map(optionLine(command)));
    if (command.operands.length > 0) {
      lines.push(`complete -c closer -n ${where} -a ${quote(command.operands.join(" "))}`);
    }
    if (command.takesAgent) {
      lines.push(`complete -c closer -n ${where} -a '(__closer_agents)' -d agent`);
    }
  }
  return `# closer completion for fish (docs/cli.md#completion)
# Install: closer completion fish > ~/.config/fish/completions/closer.fish

# The agents of the project: the folders of .agent/ (of --cwd when given) that hold an agent.json.
function __closer_agents
    set -l dir .
    set -l tokens (commandline -opc)
    set -l at (contains -i -- --cwd $tokens)
    and set -q tokens[(math $at + 1)]
    and set dir $tokens[(math $at + 1)]
    for folder in $dir/.agent/*/
        test -f $folder/agent.json
        and basename $folder
    end
end

complete -c closer -f
${lines.join("\n")}
`;
}
