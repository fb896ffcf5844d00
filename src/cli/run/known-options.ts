import { Command, CommanderError, Option } from "commander";
import { CloserError } from "../../errors.js";
import type { ParameterDefinition, ResolvedAgent } from "../../ports/agent.js";
import { oneLineUsage } from "../usage-error.js";

/** The options a command line may hold besides commander's own parse. */
export interface KnownOptions {
  /** The command as typed, for the hint: `closer run`. */
  readonly command: string;
  /** The command's own options (`--task <text>`, `--no-worktree`, `-o, --output <file>`). */
  readonly options: readonly { readonly flags: string }[];
  /** The agent whose parameter flags are options too (agent.json `parameters.<name>.flag`). */
  readonly agent?: ResolvedAgent;
  /** Report an unknown option only when commander suggests a known one (no agent to ask yet). */
  readonly typosOnly?: boolean;
}

/**
 * Throws a usage error for the first option of `tokens` (what commander left of a command that
 * allows unknown options) that neither the command nor the agent declares, with commander's
 * suggestion among both (docs/cli.md#unknown-options). Values and operands are left alone.
 */
export function assertKnownOptions(tokens: readonly string[], known: KnownOptions): void {
  const checker = makeChecker(known);
  try {
    checker.parse([...tokens], { from: "user" });
  } catch (error) {
    const unknown = error instanceof CommanderError && error.code === "commander.unknownOption";
    if (unknown && (known.typosOnly !== true || error.message.includes("(Did you mean"))) {
      throw new CloserError("usage_error", oneLineUsage(error.message), {
        fix: hintFor(known),
      });
    }
    // Anything else (a value missing, a stray operand) is the command's own to say.
  }
}

/** A silent commander command that declares every known option, so commander finds the unknown one. */
function makeChecker(known: KnownOptions): Command {
  const checker = new Command(known.command)
    .helpOption(false)
    .argument("[operands...]")
    .allowExcessArguments()
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} })
    .action(() => {});
  const taken = new Set<string>();
  for (const option of known.options) {
    const added = new Option(option.flags);
    checker.addOption(added);
    for (const flag of [added.long, added.short]) if (flag) taken.add(flag);
  }
  for (const parameter of parametersOf(known.agent)) {
    // A parameter declared with one of the command's flags takes that option's value.
    if (taken.has(parameter.flag)) continue;
    if (parameter.type === "boolean") {
      checker.addOption(new Option(`${parameter.flag} [value]`));
      const negated = `--no-${parameter.flag.slice(2)}`;
      if (!taken.has(negated)) checker.addOption(new Option(negated));
    } else {
      checker.addOption(new Option(`${parameter.flag} <value>`));
    }
  }
  return checker;
}

function parametersOf(agent: ResolvedAgent | undefined): ParameterDefinition[] {
  return agent === undefined ? [] : Object.values(agent.parameters);
}

/** Where the options are listed: the command's help, and the agent's own flags, which it cannot show. */
export function hintFor(known: KnownOptions): string {
  const help = `see ${known.command} --help`;
  if (known.agent === undefined) return help;
  const own = new Set(known.options.flatMap((option) => option.flags.match(/-{1,2}[\w-]+/g) ?? []));
  const flags = parametersOf(known.agent)
    .filter((parameter) => !own.has(parameter.flag))
    .map((parameter) =>
      parameter.type === "boolean" ? parameter.flag : `${parameter.flag} <${parameter.type}>`,
    );
  const theirs =
    flags.length === 0
      ? `agent "${known.agent.name}" declares no options of its own`
      : `agent "${known.agent.name}" also takes ${flags.join(", ")}`;
  return `${help}; ${theirs}`;
}
