import { access, cp, mkdtemp } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { CloserError } from "../../errors.js";
import { runGit } from "../../workspace/git.js";
import { makeRunCommand } from "../run-command.js";
import { runningPackageRoot } from "../scaffold/schema-location.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** The example repository and its agent, shipped in the package (docs/cli.md#demo). */
const EXAMPLE_REPO = join("examples", "example-repo");
const RECORDED_SESSION = "examples/example-repo/.agent/example/recorded/demo-session.json";

const say = (line = "") => process.stderr.write(`${line}\n`);

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** A Claude login the live model could use: a key or token in the environment, or Claude Code's file. */
async function hasCredentials(env: Environment): Promise<boolean> {
  const variables = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"];
  if (variables.some((name) => (env[name] ?? "") !== "")) return true;
  return exists(join(homedir(), ".claude", ".credentials.json"));
}

/** Whether the model's answers are replayed: asked with CLOSER_DEMO_BACKEND, else when there is no login. */
async function chooseReplay(env: Environment, work: string): Promise<boolean> {
  const choice = env.CLOSER_DEMO_BACKEND ?? "";
  const replay = choice === "replay" || (choice !== "live" && !(await hasCredentials(env)));
  if (!replay) {
    say(`closer demo: running the agent live (Claude Code, through the Agent SDK) in ${work}.`);
    say();
    return false;
  }
  const why = choice === "replay" ? "CLOSER_DEMO_BACKEND=replay" : "no Claude credentials found";
  say(`closer demo: ${why}, so the model's answers are replayed from a`);
  say(`recorded session (${RECORDED_SESSION}).`);
  say(`The checks below are real: node --test and git run in ${work}.`);
  say();
  return true;
}

/** A fresh git repository holding a copy of the example repository, in a temporary folder. */
async function makeWorkRepository(packageRoot: string): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), "closer-demo."));
  await cp(join(packageRoot, EXAMPLE_REPO), work, { recursive: true });
  await runGit(work, ["init", "--quiet", "--initial-branch=main"]);
  await runGit(work, ["add", "--all"]);
  await runGit(work, ["commit", "--quiet", "--message", "Example repo"], {
    config: ["user.name=closer demo", "user.email=demo@example.invalid"],
  });
  return work;
}

/**
 * `closer demo`: the example agent on a copy of the example repository, run
 * as `closer run` runs it, live or replayed; the exit code of that run.
 */
export async function runDemo(env: Environment): Promise<number> {
  const packageRoot = await runningPackageRoot();
  if (packageRoot === undefined || !(await exists(join(packageRoot, EXAMPLE_REPO)))) {
    throw new CloserError("not_found", "the example repository of closer's package is missing", {
      fix: "reinstall closer-agent (npm install closer-agent)",
    });
  }
  const work = await makeWorkRepository(packageRoot);
  const replay = await chooseReplay(env, work);
  const run = ["example", "--cwd", work, "--task-file", join(work, "TASK.md"), "--no-worktree"];
  process.exitCode = 0;
  await makeRunCommand().parseAsync([...run, ...(replay ? ["--backend", "replay"] : [])], {
    from: "user",
  });
  const status = typeof process.exitCode === "number" ? process.exitCode : 0;
  // How the closing lines name closer: the way it is started where the demo was (examples/demo.sh says).
  const closer = env.CLOSER_DEMO_COMMAND ?? "npx closer-agent";
  say();
  say(`closer demo: the repository the agent worked on is ${work} (git log shows its commits).`);
  say(
    "See what the run did: its iterations, checks, retries and cost by reason, in the terminal or as one HTML file:",
  );
  say(`  ${closer} show last --cwd ${work}`);
  say(`  ${closer} report last --cwd ${work}`);
  return status;
}
