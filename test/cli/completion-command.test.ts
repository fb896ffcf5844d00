import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCloser } from "./support/closer-process.js";

const onPath = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0;

let dir: string;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "closer-completion-"));
  for (const name of ["fixer", "reviewer"]) {
    await mkdir(join(dir, ".agent", name), { recursive: true });
    await writeFile(join(dir, ".agent", name, "agent.json"), "{}\n");
  }
  await mkdir(join(dir, ".agent", "notes"), { recursive: true }); // no agent.json: not an agent
  for (const shell of ["bash", "zsh", "fish"]) {
    const result = await runCloser(["completion", shell], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    scripts[shell] = result.stdout;
    await writeFile(join(dir, `closer.${shell}`), result.stdout);
  }
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What bash completes for `words` (the last one being completed), with the script sourced. */
function bashCompletes(words: readonly string[], cwd = dir): string[] {
  const line = words.map((word) => `'${word}'`).join(" ");
  const program = `source ${join(dir, "closer.bash")}
COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _closer
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync("bash", ["--norc", "--noprofile", "-c", program], {
    cwd,
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split("\n").filter((each) => each !== "");
}

describe("closer completion", () => {
  it("bash: registers a completion for closer", () => {
    const result = spawnSync(
      "bash",
      ["--norc", "--noprofile", "-c", `source ${join(dir, "closer.bash")} && complete -p closer`],
      { encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("complete -F _closer closer");
  });

  it("bash: completes commands, options, subcommands and agents", () => {
    expect(bashCompletes(["closer", "ru"])).toEqual(expect.arrayContaining(["run", "runs"]));
    expect(bashCompletes(["closer", "ru"])).not.toContain("list");
    expect(bashCompletes(["closer", "run", "fixer", "--ta"])).toEqual(["--task", "--task-file"]);
    expect(bashCompletes(["closer", "list", "--"])).toEqual(["--cwd", "--json", "--help"]);
    expect(bashCompletes(["closer", "worktrees", ""])).toEqual(["prune"]);
    expect(bashCompletes(["closer", "completion", ""])).toEqual(["bash", "zsh", "fish"]);
    expect(bashCompletes(["closer", "run", ""]).sort()).toEqual(["fixer", "reviewer"]);
    expect(bashCompletes(["closer", "validate", "f"])).toEqual(["fixer"]);
    // The agents of --cwd's project, from anywhere.
    expect(bashCompletes(["closer", "run", "--cwd", dir, ""], tmpdir()).sort()).toEqual([
      "fixer",
      "reviewer",
    ]);
    // An option's value is not taken for the command or an agent.
    expect(bashCompletes(["closer", "run", "--model", ""])).toEqual([]);
  });

  it.each(["zsh", "fish"])("%s: the script is well formed", (shell) => {
    const script = scripts[shell] ?? "";
    expect(script).toContain("closer");
    expect(script).toContain("_closer_agents");
    if (!onPath(shell)) {
      console.warn(`${shell} is not installed: its script's syntax is not checked`);
      return;
    }
    const result = spawnSync(shell, ["-n", join(dir, `closer.${shell}`)], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
  });

  it("refuses a shell it has no script for", async () => {
    const result = await runCloser(["completion", "tcsh"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Allowed choices are bash, zsh, fish");
  });
});
