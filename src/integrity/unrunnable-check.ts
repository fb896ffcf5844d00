import type { ExtractorName, ValidatorDefinition } from "../ports/registry.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { parseLintErrors } from "../tool-output/lint-errors.js";
import { quoteOutput } from "../tool-output/meaningful-lines.js";
import { joinOutput } from "../tool-output/output-lines.js";
import { parseTypeErrors } from "../tool-output/type-errors.js";
import { inventoryOf } from "./guards.js";

/** Where a validator is defined, for the fix. */
const REGISTRY_FILE = "steps_registry.json";

/** Lines of what the check printed that the message quotes. */
const QUOTED_LINES = 5;

/** `sh: 1: biome: not found` (dash), `sh: biome: command not found` (bash), `sh: ./x: Permission denied`. */
const SHELL_REFUSAL =
  /^(?:\S*sh: (?:\d+: )?(?:line \d+: )?)?([^\s:]+): (?:command not found|not found|Permission denied|No such file or directory)\s*$/m;

/**
 * Why a check cannot run on the untouched tree, or undefined when it ran —
 * passing or failing (docs/integrity.md#cannot-run): its definition is wrong
 * (`configError` of a command or file check: a path leaving the tree, an unknown validator), its
 * program or one its script starts is missing from PATH or not executable (exit
 * 126 or 127; a missing program named by a path is the project's own file, which the
 * task may be to make, and does not stop the run), or it printed what its extractor cannot read: a test check that passed
 * with output naming no test and no summary, a lint or type check that failed
 * with output naming no problem, or the OS sandbox refused what it does (a write to the
 * machine's toolchain folders). A check that merely fails is the task's, and
 * runs after every declaration.
 */
export function unrunnableReason(
  definition: ValidatorDefinition | undefined,
  outcome: ValidatorOutcome,
): string | undefined {
  if (outcome.aborted === true || outcome.timedOut === true) return undefined;
  const name = outcome.validator;
  const command = definition?.type === "command" ? definition : undefined;
  // A custom validator's module may judge the model's own code (import it, call it): what it
  // throws on the untouched tree is decided after a declaration, as any failure is.
  if (definition?.type === "custom") return undefined;
  if (outcome.configError !== undefined && (command === undefined || !notRunnable(outcome)))
    return `${cannotRun(name)}: ${outcome.configError}`;
  const refused = refusedBySandbox(name, outcome);
  if (refused !== undefined) return refused;
  if (command === undefined) return undefined;
  const printed = quoteOutput(joinOutput(outcome.stdout ?? "", outcome.stderr ?? ""), QUOTED_LINES);
  const said = printed === "" ? "it printed nothing" : `it printed: ${printed}`;
  const fixCommand = `fix the command in ${REGISTRY_FILE} validators.${name}.command`;
  const exit = `exit ${outcome.exitCode} from \`${command.command}\``;
  if (notRunnable(outcome)) {
    const program = programOf(outcome, command.command);
    // A missing path is a file of the project's, which the task may be to make; a bare name is a
    // program the machine or the project's setup should have put on PATH.
    if (outcome.exitCode === 127 && program.includes("/")) return undefined;
    const missing = outcome.exitCode === 127;
    const fix = `${missing ? `install ${program}` : `make ${program} executable`} or ${fixCommand}`;
    const what = missing ? "is not found" : "cannot be executed";
    return `${cannotRun(name)}: its program ${program} ${what} (${exit}); ${said}. Fix: ${fix}`;
  }
  const unread = unreadExtractor(command.extractParams, outcome);
  if (unread === undefined) return undefined;
  const fix = `make the command print what ${unread} reads (docs/completion.md#extract-params), or ${fixCommand}`;
  return `${cannotRun(name)}: ${unread} reads nothing from its output (${exit}); ${said}. Fix: ${fix}`;
}

/** Refusals the message names; the rest are counted. */
const QUOTED_REFUSALS = 3;

/**
 * A check the OS sandbox refused on the untouched tree fails after every declaration too, for
 * the same reason: the place it writes (a toolchain's lock or cache folder) is the machine's,
 * and only the agent's sandbox settings can open it (docs/sandbox.md#refusals).
 */
function refusedBySandbox(name: string, outcome: ValidatorOutcome): string | undefined {
  const refusals = [...new Set(outcome.sandboxRefusals ?? [])];
  if (refusals.length === 0) return undefined;
  const more = refusals.length - QUOTED_REFUSALS;
  const named =
    refusals.slice(0, QUOTED_REFUSALS).join("; ") + (more > 0 ? ` (and ${more} more)` : "");
  const connects = refusals.some((refusal) => refusal.startsWith("deny network-outbound"));
  const fix = connects
    ? "add the host to runner.sandbox.validatorDomains in agent.json (docs/sandbox.md#widening), or vendor what the check downloads"
    : "add the place it writes to runner.sandbox.allowWrite in agent.json (docs/sandbox.md#widening), " +
      "or set the tool's own variable to a writable place";
  return `${cannotRun(name)}: the OS sandbox refused it: ${named}. Fix: ${fix}`;
}

/** Exit 127 (not found) or 126 (not executable): the shell could not start a program. */
function notRunnable(outcome: ValidatorOutcome): boolean {
  return outcome.exitCode === 127 || outcome.exitCode === 126;
}

function cannotRun(name: string): string {
  return `the check "${name}" cannot run on the untouched tree`;
}

/** The program the shell could not find or run, else the command's first word. */
function programOf(outcome: ValidatorOutcome, command: string): string {
  const refused = SHELL_REFUSAL.exec(joinOutput(outcome.stdout ?? "", outcome.stderr ?? ""));
  return refused?.[1] ?? command.trim().split(/\s+/)[0] ?? command;
}

/**
 * The extractor that cannot read the check's output: `parseTestOutput` when the check passed
 * and its output shows no test run (every later pass would be refuted as "no test ran",
 * docs/integrity.md#guards); `parseLintErrors`, `parseTypeErrors` when it failed and they
 * find no problem.
 */
function unreadExtractor(
  extractors: Readonly<Record<string, ExtractorName>>,
  outcome: ValidatorOutcome,
): ExtractorName | undefined {
  const used = new Set(Object.values(extractors));
  if (outcome.valid) {
    return used.has("parseTestOutput") && inventoryOf(outcome) === undefined
      ? "parseTestOutput"
      : undefined;
  }
  const output = joinOutput(outcome.stdout ?? "", outcome.stderr ?? "");
  if (used.has("parseLintErrors") && parseLintErrors(output).length === 0) return "parseLintErrors";
  if (used.has("parseTypeErrors") && parseTypeErrors(output).length === 0) return "parseTypeErrors";
  return undefined;
}
