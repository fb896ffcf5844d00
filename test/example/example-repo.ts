import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../../src/process/shell-command.js";

export const EXAMPLE_REPO = fileURLToPath(new URL("../../examples/example-repo/", import.meta.url));

/** A fresh git copy of the bundled example repo, as the demo makes it. */
export async function copyExampleRepo(
  passToBackend: readonly string[] = [],
): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "closer-example-"));
  await cp(EXAMPLE_REPO, dir, { recursive: true });
  if (passToBackend.length > 0) {
    // A test double's settings reach the backend only when passed (docs/backends.md#environment).
    const agentFile = join(dir, ".agent/example/agent.json");
    const agent = JSON.parse(await readFile(agentFile, "utf8"));
    agent.runner.env = { backend: [...passToBackend] };
    await writeFile(agentFile, `${JSON.stringify(agent, null, 2)}\n`);
  }
  const git = (command: string) => runCommand({ command, cwd: dir, timeoutMs: 30_000 });
  await git("git init -q -b main && git add -A");
  await git('git -c user.name=test -c user.email=test@example.invalid commit -qm "Example repo"');
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The two recorded answers of the demo session (file contents and commit commands). */
export async function readDemoSession(): Promise<
  { files: Record<string, string>; commands: string[]; structuredOutput: unknown }[]
> {
  const file = join(EXAMPLE_REPO, ".agent/example/recorded/demo-session.json");
  return JSON.parse(await readFile(file, "utf8")).turns;
}
