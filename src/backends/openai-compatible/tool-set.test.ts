import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ToolExecutionOptions } from "ai";
import { describe, expect, it } from "vitest";
import { makeToolSet } from "./tool-set.js";

const OPTIONS: ToolExecutionOptions = { toolCallId: "call-1", messages: [] };

describe("makeToolSet", () => {
  it("offers the six tools, each working in the tree and naming itself as it runs", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "closer-tool-set-"));
    await writeFile(path.join(root, "a.txt"), "one\n");
    const used: string[] = [];
    const answers: string[] = [];
    const tools = makeToolSet({ root, protectedPaths: [] }, (name, input, callId) => {
      used.push(`${name} ${JSON.stringify(input)} ${callId}`);
      return (answer) => answers.push(answer.split("\n")[0] ?? "");
    });
    expect(Object.keys(tools).sort()).toEqual(["bash", "edit", "grep", "list", "read", "write"]);
    await tools.edit?.execute?.({ path: "a.txt", old_string: "one", new_string: "two" }, OPTIONS);
    expect(await tools.bash?.execute?.({ command: "cat a.txt" }, OPTIONS)).toContain("two");
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("two\n");
    expect(used).toEqual([
      'edit {"path":"a.txt","old_string":"one","new_string":"two"} call-1',
      'bash {"command":"cat a.txt"} call-1',
    ]);
    expect(answers[1]).toBe("exit code 0");
  });

  it("runs calls started together one after another, in the order they came", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "closer-tool-set-"));
    const tools = makeToolSet({ root, protectedPaths: [] }, () => () => {});
    await Promise.all([
      tools.bash?.execute?.({ command: "sleep 0.3; echo first >> order.txt" }, OPTIONS),
      tools.bash?.execute?.({ command: "echo second >> order.txt" }, OPTIONS),
    ]);
    expect(await readFile(path.join(root, "order.txt"), "utf8")).toBe("first\nsecond\n");
  });
});
