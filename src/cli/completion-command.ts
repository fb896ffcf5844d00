import { Argument, Command } from "commander";

const SHELLS = ["bash", "zsh", "fish"] as const;

const EXAMPLES = `
Install:
  bash  closer completion bash > ~/.local/share/bash-completion/completions/closer
        (or in ~/.bashrc: source <(closer completion bash))
  zsh   closer completion zsh > "\${fpath[1]}/_closer"
        (or in ~/.zshrc, after compinit: source <(closer completion zsh))
  fish  closer completion fish > ~/.config/fish/completions/closer.fish

Then a new shell completes closer's commands and each command's options, and the agents of
.agent/ (of --cwd when given) after \`closer run\`, \`closer validate\` and \`closer enqueue\`.
Write the script again after installing another version of closer.`;

/** `closer completion <shell>` (docs/cli.md#completion). */
export function makeCompletionCommand(): Command {
  return new Command("completion")
    .description(
      "Print a completion script for bash, zsh or fish: closer's commands, the options of each, " +
        "and the agents of the project.",
    )
    .addArgument(new Argument("<shell>", "the shell the script is for").choices(SHELLS))
    .addHelpText("after", EXAMPLES)
    .action(async (shell: (typeof SHELLS)[number], _options: unknown, self: Command) => {
      const { writeCompletionScript } = await import("./actions/completion.js");
      writeCompletionScript(shell, self.parent ?? self);
    });
}
