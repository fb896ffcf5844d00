import type { Command } from "commander";

/** An option as a completion script offers it. */
export interface CompletionOption {
  /** `--task`, and `-o` beside `--output`. */
  readonly names: readonly string[];
  readonly description: string;
  /** What its value is: a folder, a file, other text, or none (a switch). */
  readonly value: "dir" | "file" | "text" | "none";
}

/** A command as a completion script offers it: its options, subcommands and operands. */
export interface CompletionCommand {
  /** The command path after `closer`: "" for closer itself, `worktrees prune`. */
  readonly path: string;
  readonly name: string;
  readonly summary: string;
  readonly options: readonly CompletionOption[];
  readonly subcommands: readonly CompletionCommand[];
  /** The words its first operand may be (`bash zsh fish`, the commands of `help`). */
  readonly operands: readonly string[];
  /** Its first operand is an agent: the folders under .agent/ that hold an agent.json. */
  readonly takesAgent: boolean;
}

/** The commands whose first operand names an agent that exists (init names a new one). */
const AGENT_COMMANDS = new Set(["run", "validate", "enqueue", "watch"]);

const HELP_OPTION: CompletionOption = {
  names: ["-h", "--help"],
  description: "print the help",
  value: "none",
};

/** The command tree of `program`, read from its commander definition. */
export function readCommandTree(program: Command, path = ""): CompletionCommand {
  const subcommands = program.commands.map((sub) =>
    readCommandTree(sub, path === "" ? sub.name() : `${path} ${sub.name()}`),
  );
  // `closer help <command>`: commander keeps the help command apart from the others.
  if (path === "") subcommands.push(helpCommand(subcommands.map((sub) => sub.name)));
  return {
    path,
    name: program.name(),
    summary: program.summary() || firstSentence(program.description()),
    options: [...program.options.filter((option) => !option.hidden).map(toOption), HELP_OPTION],
    subcommands,
    operands: [...(program.registeredArguments[0]?.argChoices ?? [])],
    takesAgent: AGENT_COMMANDS.has(path),
  };
}

function helpCommand(commands: readonly string[]): CompletionCommand {
  return {
    path: "help",
    name: "help",
    summary: "print the help of a command",
    options: [],
    subcommands: [],
    operands: commands,
    takesAgent: false,
  };
}

function toOption(option: {
  readonly flags: string;
  readonly long?: string | undefined;
  readonly short?: string | undefined;
  readonly description: string;
  readonly required: boolean;
  readonly optional: boolean;
}): CompletionOption {
  const names = [option.short, option.long].filter((name): name is string => Boolean(name));
  const placeholder = /<(\w+)>|\[(\w+)\]/.exec(option.flags);
  const word = placeholder?.[1] ?? placeholder?.[2];
  const value =
    !option.required && !option.optional
      ? "none"
      : word === "dir"
        ? "dir"
        : word === "file"
          ? "file"
          : "text";
  return { names, description: firstSentence(option.description), value };
}

function firstSentence(text: string): string {
  return (text.split(/(?<=\.)\s|;\s|\n/)[0] ?? text).replace(/\.$/, "");
}

/** Every command of the tree, closer itself first. */
export function flattenTree(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.subcommands.flatMap(flattenTree)];
}
