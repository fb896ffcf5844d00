import { mkdir, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { isProcessGroupAlive } from "../../process/shell-command.js";
import { bashTool, grepTool, listTool, type ShellContext } from "./shell-tools.js";

let root: string;
let context: ShellContext;

beforeEach(async () => {
  const base = await mkdtemp(path.join(tmpdir(), "closer-shell-tools-"));
  root = path.join(base, "tree");
  await mkdir(path.join(root, "src"), { recursive: true });
  await mkdir(path.join(root, "node_modules", "dep"), { recursive: true });
  await mkdir(path.join(base, "outside"));
  await writeFile(path.join(base, "outside", "leak.js"), "export const add = 1;\n");
  await symlink(path.join(base, "outside"), path.join(root, "escape"));
  await symlink(path.join(base, "outside", "leak.js"), path.join(root, "src", "linked.js"));
  await writeFile(
    path.join(root, "src", "add.js"),
    "export function add(a, b) {\n  return a - b;\n}\n",
  );
  await writeFile(path.join(root, "README.md"), "add numbers\n");
  await writeFile(path.join(root, "node_modules", "dep", "index.js"), "export function add() {}\n");
  context = { root, protectedPaths: [] };
});

describe("listTool", () => {
  it("lists the tree's files matching a glob, without node_modules and .git", async () => {
    expect(await listTool(context, { pattern: "**/*.js" })).toBe("src/add.js");
    expect(await listTool(context, { pattern: "*.py" })).toBe("no files match");
  });
});

describe("grepTool", () => {
  it("names the file and line of each match", async () => {
    expect(await grepTool(context, { pattern: "return a - b" })).toBe(
      "src/add.js:2:   return a - b;",
    );
    expect(await grepTool(context, { pattern: "^export", glob: "**/*.js" })).toBe(
      "src/add.js:1: export function add(a, b) {",
    );
  });

  it("answers an invalid regular expression with an error result", async () => {
    expect(await grepTool(context, { pattern: "(" })).toMatch(/^error: /);
  });
});

describe("bashTool", () => {
  it("runs in the working tree with the given environment and reports the exit code and output", async () => {
    const result = await bashTool(
      { ...context, env: { GREETING: "hello" } },
      { command: 'echo "$GREETING from $(pwd)"; echo oops >&2; exit 3' },
    );
    expect(result).toContain("exit code 3");
    expect(result).toContain(`hello from ${root}`);
    expect(result).toContain("stderr:\noops");
  });

  it("ends the whole process group of a command that outlives its timeout", async () => {
    const result = await bashTool(
      { ...context, commandTimeoutMs: 300 },
      { command: "echo $$ > group.pid; sleep 30 & wait" },
    );
    expect(result).toMatch(/^timed out after 300 ms/);
    const groupId = Number((await readFile(path.join(root, "group.pid"), "utf8")).trim());
    expect(await isProcessGroupAlive(groupId)).toBe(false);
  });

  it("refuses a command past the GitHub boundary without running it, and tells who listens", async () => {
    const refused: string[] = [];
    const result = await bashTool(
      { ...context, onRefused: (command) => refused.push(command) },
      { command: "touch ran.txt && gh issue close 7" },
    );
    expect(result).toMatch(/^error: refused: closer performs GitHub side effects/);
    expect(refused).toEqual(["touch ran.txt && gh issue close 7"]);
    await expect(readFile(path.join(root, "ran.txt"))).rejects.toThrow();
  });

  it("names a process that left the command's group and still runs, and tells who listens", async () => {
    const left: number[] = [];
    const result = await bashTool(
      { ...context, onLeftRunning: (processes) => left.push(...processes.map((p) => p.pid)) },
      {
        command:
          'setsid sh -c "echo \\$\\$ > escaped.pid; exec sleep 100" & while [ ! -s escaped.pid ]; do sleep 0.05; done; echo done',
      },
    );
    const escapedPid = Number((await readFile(path.join(root, "escaped.pid"), "utf8")).trim());
    try {
      expect(left).toEqual([escapedPid]);
      expect(result).toContain(
        `left running outside the command's process group: ${escapedPid} (sleep 100)`,
      );
    } finally {
      process.kill(escapedPid, "SIGKILL");
    }
  });

  it("caps what a long output gives back to the model", async () => {
    const result = await bashTool(context, { command: "yes line | head -c 200000" });
    expect(result.length).toBeLessThan(70_000);
    expect(result).toContain("more characters left out");
  });
});
