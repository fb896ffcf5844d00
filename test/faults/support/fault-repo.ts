/**
 * A repository for one fault: the project of the issue tests, and one agent
 * (`faulty`) whose "model" is a Node program given as source text and run by
 * the `command` backend. The program reads the prompt on stdin, does what the
 * fault needs, and answers on stdout; `DONE_ANSWER` is a declaration of done.
 * `scratch/` beside it is ignored by git: a place for the program's own notes
 * (a call counter, its pid) that do not make the tree dirty.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FixtureRepo, makeFixtureRepo, writeAgent } from "../../../src/testing/index.js";
import { type IssueAgentOptions, makeIssueAgent, PROJECT } from "../../run/support/issue-repo.js";

/** Source line that prints a declaration of done. */
export const DONE_ANSWER = `console.log(JSON.stringify({ status: "completed", summary: "done", next_action: { action: "complete", reason: "done" } }));`;

/** Source lines that read the whole prompt into `prompt`. */
export const READ_PROMPT = `let prompt = ""; for await (const chunk of process.stdin) prompt += chunk;`;

export interface FaultRepoOptions extends IssueAgentOptions {
  /** The model's program (ES module source). Default: reads the prompt and declares done. */
  readonly program?: string;
  /** More files of the project (committed). */
  readonly files?: Readonly<Record<string, string>>;
  /** More files of the agent folder (a custom validator's module, say), committed. */
  readonly agentFiles?: Readonly<Record<string, string>>;
}

export interface FaultRepo extends FixtureRepo {
  /** The agent's name, for `closer run`. */
  readonly agent: string;
  /** Where the program lives (outside the working tree's tracked files). */
  readonly programPath: string;
}

export async function makeFaultRepo(options: FaultRepoOptions = {}): Promise<FaultRepo> {
  const { program, files, agentFiles, ...agentOptions } = options;
  const repo = await makeFixtureRepo({
    files: { ...PROJECT, ".gitignore": "node_modules/\n.closer/\nmodel.mjs\nscratch/\n", ...files },
  });
  const programPath = join(repo.dir, "model.mjs");
  await mkdir(join(repo.dir, "scratch"));
  await writeFile(programPath, program ?? `${READ_PROMPT}\n${DONE_ANSWER}\n`);
  const fixture = makeIssueAgent({
    name: "faulty",
    textOnly: true,
    parameters: {},
    initialPrompt: "# {{task.title}}\n\n{{task.body}}\n",
    ...agentOptions,
    runner: {
      backend: { kind: "command", command: ["node", programPath] },
      maxIterations: 3,
      ...agentOptions.runner,
    },
  });
  await writeAgent(repo.dir, { ...fixture, files: { ...fixture.files, ...agentFiles } });
  await repo.commitAll("project and agent");
  return { ...repo, agent: "faulty", programPath };
}
