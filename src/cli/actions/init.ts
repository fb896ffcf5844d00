import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { CloserError } from "../../errors.js";
import { explainBadWord } from "../../prompts/c3l.js";
import { makeScaffoldFiles } from "../scaffold/scaffold-files.js";

/** `closer init`: writes the scaffold of a new agent. */
export async function runInit(agent: string, cwd: string, force: boolean): Promise<void> {
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
