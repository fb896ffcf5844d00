import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type CommandResult, runCommand } from "../process/shell-command.js";

/** An agent folder described as objects: written to `<cwd>/.agent/<name>/`. */
export interface AgentFixture {
  readonly name: string;
  /** agent.json content. */
  readonly agent: Record<string, unknown>;
  /** steps_registry.json content. */
  readonly registry: Record<string, unknown>;
  /** `schemas/<file>` → schema object. */
  readonly schemas?: Readonly<Record<string, unknown>>;
  /** `prompts/<path>` → template text, e.g. `steps/initial/issue/f_default.md`. */
  readonly prompts?: Readonly<Record<string, string>>;
  /** Any other file of the agent folder (a custom validator module, say) → text. */
  readonly files?: Readonly<Record<string, string>>;
}

/** A real git repository in a temp folder. */
export interface FixtureRepo {
  /** Absolute, symlink-free path of the working tree. */
  readonly dir: string;
  /** Runs git in the repository (never throws; check exitCode). */
  git(...args: string[]): Promise<CommandResult>;
  /** Stages and commits everything; returns false when there was nothing to commit. */
  commitAll(message: string): Promise<boolean>;
  /** Removes the folder. */
  cleanup(): Promise<void>;
}

const GIT_TIMEOUT_MS = 30_000;

/** Writes an agent folder from objects; returns its absolute path. */
export async function writeAgent(cwd: string, definition: AgentFixture): Promise<string> {
  const agentDir = join(cwd, ".agent", definition.name);
  const files: Record<string, string> = {
    "agent.json": `${JSON.stringify(definition.agent, null, 2)}\n`,
    "steps_registry.json": `${JSON.stringify(definition.registry, null, 2)}\n`,
    ...definition.files,
  };
  for (const [file, schema] of Object.entries(definition.schemas ?? {})) {
    files[join("schemas", file)] = `${JSON.stringify(schema, null, 2)}\n`;
  }
  for (const [path, text] of Object.entries(definition.prompts ?? {})) {
    files[join("prompts", path)] = text;
  }
  await writeFiles(agentDir, files);
  return agentDir;
}

/**
 * Makes a real git repository in a temp folder holding `files` (and the
 * given agent folders), all committed on branch `main`, with a local
 * identity so commits work on any machine.
 */
export async function makeFixtureRepo(
  options: { files?: Readonly<Record<string, string>>; agents?: readonly AgentFixture[] } = {},
): Promise<FixtureRepo> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "closer-fixture-")));
  const git = (...args: string[]) =>
    runCommand({ command: ["git", ...args], cwd: dir, timeoutMs: GIT_TIMEOUT_MS });
  const mustGit = async (...args: string[]) => {
    const result = await git(...args);
    if (result.exitCode !== 0) {
      throw new Error(`git ${args.join(" ")} failed in ${dir}: ${result.stderr}`);
    }
    return result;
  };
  const commitAll = async (message: string) => {
    await mustGit("add", "--all");
    if ((await git("diff", "--cached", "--quiet")).exitCode === 0) return false;
    await mustGit("commit", "--quiet", "--no-verify", "-m", message);
    return true;
  };
  await mustGit("init", "--quiet", "--initial-branch=main");
  await mustGit("config", "user.name", "closer fixture");
  await mustGit("config", "user.email", "fixture@closer.invalid");
  await mustGit("config", "commit.gpgsign", "false");
  await writeFiles(dir, options.files ?? { "README.md": "# fixture\n" });
  for (const agent of options.agents ?? []) await writeAgent(dir, agent);
  await commitAll("initial commit");
  return { dir, git, commitAll, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function writeFiles(root: string, files: Readonly<Record<string, string>>) {
  for (const [path, text] of Object.entries(files)) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
}
