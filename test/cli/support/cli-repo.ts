import { join } from "node:path";
import { vi } from "vitest";
import { runCli } from "../../../src/cli/program.js";
import { type FixtureRepo, makeFixtureRepo, writeAgent } from "../../../src/testing/index.js";
import { makeIssueAgent, PROJECT } from "../../run/support/issue-repo.js";

/**
 * An agent program for the `command` backend: reads the prompt, acts as its
 * mode says, and answers with a JSON declaration on stdout.
 *  - good: writes work.txt and commits it
 *  - lazy: does nothing
 *  - picky: as good (plus a file of its own), but as lazy when the prompt
 *    mentions "Impossible"
 *  - slow: starts a child that sleeps a minute and waits for it (to be
 *    interrupted); both pids go to .closer/agent-pids, and the mark closer gave
 *    its processes (how they are found from outside the OS sandbox, whose pids
 *    are its own) to .closer/agent-mark
 *  - stubborn: the same, but both ignore SIGTERM
 *  - unauthorized: fails as a model API that rejects the key
 */
const AGENT_PROGRAM = `import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
const mode = process.argv[2];
let prompt = "";
for await (const chunk of process.stdin) prompt += chunk;
if (mode === "good" || (mode === "picky" && !prompt.includes("Impossible"))) {
  writeFileSync("work.txt", "done\\n");
  // Work of its own, so there is something to commit after another run merged work.txt
  // (named at random: in the OS sandbox every run's program may have the same pid).
  if (mode === "picky") writeFileSync("work-" + randomUUID() + ".txt", "mine\\n");
  execFileSync("git", ["add", "--all"]);
  execFileSync("git", ["commit", "--quiet", "-m", "work"]);
}
if (mode === "slow" || mode === "stubborn") {
  const trap = mode === "stubborn" ? "trap '' TERM; " : "";
  if (mode === "stubborn") process.on("SIGTERM", () => {});
  const child = spawn("sh", ["-c", trap + "sleep 60"], { stdio: "ignore" });
  mkdirSync(".closer", { recursive: true });
  writeFileSync(".closer/agent-mark", process.env.PROCESS_TREE_MARK ?? "none");
  writeFileSync(".closer/agent-pids", process.pid + " " + child.pid + "\\n");
  await new Promise((resolve) => child.on("exit", resolve));
}
if (mode === "unauthorized") {
  console.error("Error: 401 invalid x-api-key");
  process.exit(1);
}
console.log(JSON.stringify({
  status: "completed",
  summary: mode + " agent finished",
  next_action: { action: "complete", reason: "done" },
}));
`;

const AGENT_MODES = ["good", "lazy", "picky", "slow", "stubborn", "unauthorized"] as const;

export type AgentMode = (typeof AGENT_MODES)[number];

/** A fixture repository with one command-backend agent per mode (named after it) and `params`. */
export async function makeCliRepo(): Promise<FixtureRepo> {
  const repo = await makeFixtureRepo({ files: { ...PROJECT, ".gitignore": ".closer/\n" } });
  const program = join(repo.dir, "agent-program.mjs");
  for (const mode of AGENT_MODES) {
    await writeAgent(repo.dir, cliAgent(mode, program));
  }
  await writeAgent(repo.dir, {
    ...cliAgent("good", program, "params"),
    prompts: {
      "steps/initial/issue/f_default.md":
        "# {{task.title}}\nFlavour {{flavour}}, count {{count}}.\n",
      "steps/continuation/issue/f_default.md": "# {{task.title}}\n{{previousSummary}}\n",
    },
  });
  await writeAgentProgram(repo.dir);
  await repo.commitAll("agents");
  return repo;
}

function cliAgent(mode: AgentMode, program: string, name: string = mode) {
  return makeIssueAgent({
    name,
    runner: {
      backend: { kind: "command", command: ["node", program, mode] },
      maxIterations: 3,
    },
    parameters:
      name === "params"
        ? {
            flavour: { type: "string", required: true, description: "the flavour" },
            count: { type: "number", default: 1, description: "how many" },
            issue: { type: "number", description: "the issue" },
          }
        : { issue: { type: "number", description: "the issue" } },
    textOnly: true,
    patterns: {
      "work-missing": {
        description: "work.txt is missing",
        edition: "failed",
        adaptation: "work-missing",
        params: [],
      },
    },
    validators: {
      "work-exists": {
        type: "file",
        path: "work.txt",
        failurePattern: "work-missing",
        extractParams: {},
      },
    },
    conditions: ["git-clean", "work-exists"],
  });
}

async function writeAgentProgram(dir: string): Promise<void> {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(join(dir, "agent-program.mjs"), AGENT_PROGRAM);
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in this process, capturing what it writes. */
export async function cli(...args: string[]): Promise<CliResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const capture = (sink: string[]) => (chunk: string | Uint8Array) => {
    sink.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  };
  const outSpy = vi.spyOn(process.stdout, "write").mockImplementation(capture(stdout) as never);
  const errSpy = vi.spyOn(process.stderr, "write").mockImplementation(capture(stderr) as never);
  process.exitCode = undefined;
  try {
    const code = await runCli(args);
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  } finally {
    outSpy.mockRestore();
    errSpy.mockRestore();
    process.exitCode = undefined;
  }
}
