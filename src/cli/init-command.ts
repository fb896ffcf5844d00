import { resolve } from "node:path";
import { Command } from "commander";
import { BACKEND_KINDS } from "../ports/runner-config.js";

/** The kinds init writes whole; the others need a setting only the user can give, or are for tests. */
const WRITABLE_KINDS = BACKEND_KINDS.filter(
  (kind) => kind !== "command" && kind !== "replay" && kind !== "scripted",
);

interface InitFlags {
  readonly cwd?: string;
  readonly force?: boolean;
  readonly testCommand?: string;
  readonly backend?: string;
  readonly withEvidence?: boolean;
  readonly baseUrl?: string;
  readonly model?: string;
  readonly apiKeyEnv?: string;
}

/** The name `closer init` gives an agent when none is named: the scaffold iterates on an issue. */
const DEFAULT_AGENT_NAME = "iterator";

const EXAMPLES = `
Examples:
  $ closer init                            create .agent/iterator/ (the default name)
  $ closer init iterator                   the same, named
  $ closer init iterator --cwd ~/project   create it in another project
  $ closer init iterator --test-command "npm run test:unit"
  $ closer init iterator --backend codex   an agent run by another backend
  $ closer init iterator --backend openai-compatible --base-url http://localhost:11434/v1 \\
      --model qwen2.5-coder                a local model through an OpenAI-compatible endpoint
  $ closer init iterator --with-evidence   the answer reports each check's result and output
  $ closer init iterator --force           rewrite the scaffold files of an existing agent

init reads the project (package.json and its lockfile, pyproject.toml, uv.lock, tox.ini, ruff and
mypy configuration, go.mod, Cargo.toml, deno.json, a Makefile's test target) and prints what it found
and chose, and what would fail a run (a tool not on PATH, no git repository). Its JSON is laid out
as the project's biome or prettier configuration says; under prettier the prompts go into
.prettierignore. The agent
works on a GitHub issue (--issue N) or a written task (--task TEXT) until \`git status --porcelain\`
is empty and the checks it chose (tests, type check, lint) pass.`;

export function makeInitCommand(): Command {
  return new Command("init")
    .summary("Scaffold a complete, working issue agent under .agent/<agent>/.")
    .description(
      "Scaffold a working issue agent under .agent/<agent>/: agent.json, " +
        "steps_registry.json, an output schema, and the step, retry and closure review prompts. " +
        "Its checks are the ones the project has: its tests, type check and linter.",
    )
    .argument(
      "[agent]",
      "name of the new agent (lowercase letters, digits, '.', '_' or '-')",
      DEFAULT_AGENT_NAME,
    )
    .option(
      "--cwd <dir>",
      "project directory to create .agent/<agent>/ in (default: the current directory)",
    )
    .option("--test-command <cmd>", "command that runs the tests (instead of the one found)")
    .option(
      "--backend <kind>",
      `backend of the agent: ${WRITABLE_KINDS.join(", ")} (default claude-sdk); ` +
        "a kind that needs settings of its own (command, replay) is refused",
    )
    .option("--base-url <url>", "the openai-compatible backend's endpoint, up to /v1")
    .option("--model <name>", "the model the backend asks (required by openai-compatible)")
    .option(
      "--api-key-env <var>",
      "the environment variable holding the endpoint's API key (openai-compatible)",
    )
    .option(
      "--with-evidence",
      "the answer also reports each check's result (validation) and output (evidence); " +
        "closer names every report its own checks contradict",
    )
    .option("--force", "overwrite the scaffold files of an existing agent (other files are kept)")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string, flags: InitFlags) => {
      const { runInit } = await import("./actions/init.js");
      await runInit(agent, {
        cwd: resolve(flags.cwd ?? process.cwd()),
        force: flags.force === true,
        testCommand: flags.testCommand,
        backend: flags.backend,
        withEvidence: flags.withEvidence === true,
        backendSettings: {
          ...(flags.baseUrl === undefined ? {} : { baseURL: flags.baseUrl }),
          ...(flags.model === undefined ? {} : { model: flags.model }),
          ...(flags.apiKeyEnv === undefined ? {} : { apiKeyEnv: flags.apiKeyEnv }),
        },
      });
    });
}
