import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { Command } from "commander";
import { CloserError } from "../errors.js";
import { explainBadWord } from "../prompts/c3l.js";
import { makeScaffoldFiles } from "./scaffold/scaffold-files.js";

interface InitOptions {
  readonly cwd?: string;
  readonly force?: boolean;
}

const EXAMPLES = `
Examples:
  $ closer init iterator                   create .agent/iterator/
  $ closer init iterator --cwd ~/project   create it in another project
  $ closer init iterator --force           rewrite the scaffold files of an existing agent

The agent works on a GitHub issue (--issue N) or a written task (--task TEXT) until
\`git status --porcelain\` is empty and \`npm test\` passes. It also defines type-check, lint
and format-check validators: add them to completionSteps["complete.issue"].completionConditions
in steps_registry.json to use them.`;

export function makeInitCommand(): Command {
  return new Command("init")
    .summary("Scaffold a complete, working issue agent under .agent/<agent>/.")
    .description(
      "Scaffold a working issue agent under .agent/<agent>/: agent.json, " +
        "steps_registry.json, an output schema, and the step, retry and closure review prompts.",
    )
    .argument("<agent>", "name of the new agent (lowercase letters, digits, '.', '_' or '-')")
    .option(
      "--cwd <dir>",
      "project directory to create .agent/<agent>/ in (default: the current directory)",
    )
    .option("--force", "overwrite the scaffold files of an existing agent (other files are kept)")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string, options: InitOptions) => {
      await runInit(agent, resolve(options.cwd ?? process.cwd()), options.force === true);
    });
}

async function runInit(agent: string, cwd: string, force: boolean): Promise<void> {
  const badName = explainBadWord(agent);
  if (badName !== undefined) {
    throw new CloserError("usage_error", `agent name "${agent}" is not allowed: ${badName}`, {
      fix: "use lowercase letters, digits, '.', '_' or '-', e.g. closer init iterator",
    });
  }
  const agentDir = join(cwd, ".agent", agent);
  const shownDir = relative(cwd, agentDir);
  const exists = await stat(agentDir).then(
    () => true,
    () => false,
  );
  if (exists && !force) {
    throw new CloserError("usage_error", `agent "${agent}" already exists; nothing was written`, {
      file: shownDir,
      fix: `choose another name, or run closer init ${agent} --force to overwrite its scaffold files`,
    });
  }
  for (const file of makeScaffoldFiles(agent)) {
    const path = join(agentDir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.text);
    process.stdout.write(`${exists ? "wrote  " : "created"} ${relative(cwd, path)}\n`);
  }
  process.stdout.write(
    [
      "",
      "Next steps:",
      `  closer validate ${agent}`,
      `  git add ${shownDir} && git commit -m "Add the ${agent} agent"   (the git-clean check needs a clean tree)`,
      `  closer run ${agent} --task "…"   (or --issue N)`,
      "",
    ].join("\n"),
  );
}
