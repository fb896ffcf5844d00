import { describe, expect, it } from "vitest";
import type { ToolActivity } from "../../ports/backend.js";
import { makeClaudeToolCallReader } from "./claude-tool-calls.js";
import { makeCodexToolCallReader } from "./codex-tool-calls.js";
import { actionOf, targetOf } from "./name-tool-call.js";
import { readOpencodeToolCall } from "./opencode-tool-calls.js";
import { toolCallsFromLines } from "./tool-call-lines.js";

/** `start write a.ts`, `end command npm test exit=1 failed`: the activity in a line each. */
function brief(activity: readonly ToolActivity[]): string[] {
  return activity.map((item) => {
    const { action, target } = item.call;
    if (item.phase === "start") return `start ${action} ${target}`;
    const exit = item.exitCode === undefined ? "" : ` exit=${item.exitCode}`;
    return `end ${action} ${target}${exit}${item.failed ? " failed" : ""}`;
  });
}

describe("Claude Code's stream-json messages", () => {
  const assistant = (...content: unknown[]) => ({ type: "assistant", message: { content } });
  const user = (...content: unknown[]) => ({ type: "user", message: { content } });

  it("starts a call at its tool_use and ends it at the tool_result naming its id", () => {
    const read = makeClaudeToolCallReader();
    const activity = [
      assistant(
        { type: "text", text: "Let me fix it." },
        { type: "tool_use", id: "t1", name: "Edit", input: { file_path: "/w/src/a.ts" } },
        { type: "tool_use", id: "t2", name: "Bash", input: { command: "npm test\n# again" } },
      ),
      user({ type: "tool_result", tool_use_id: "t1", content: "edited", is_error: false }),
      user({
        type: "tool_result",
        tool_use_id: "t2",
        content: [{ type: "text", text: "Exit code 1\nnot ok 1 - adds" }],
        is_error: true,
      }),
    ].flatMap(read);
    expect(brief(activity)).toEqual([
      "start edit /w/src/a.ts",
      "start command npm test …",
      "end edit /w/src/a.ts",
      "end command npm test … exit=1 failed",
    ]);
  });

  it("leaves out the StructuredOutput call (the answer, not work) and results of calls it never saw", () => {
    const read = makeClaudeToolCallReader();
    const activity = [
      assistant({ type: "tool_use", id: "s", name: "StructuredOutput", input: { status: "done" } }),
      user({ type: "tool_result", tool_use_id: "s", content: "ok" }),
      user({ type: "tool_result", tool_use_id: "unknown", content: "ok" }),
      { type: "result", subtype: "success" },
    ].flatMap(read);
    expect(activity).toEqual([]);
  });

  it("a successful command ended with exit 0; a command that failed without saying its code has none", () => {
    const read = makeClaudeToolCallReader();
    const activity = [
      assistant({ type: "tool_use", id: "a", name: "Bash", input: { command: "ls" } }),
      assistant({ type: "tool_use", id: "b", name: "Bash", input: { command: "rm x" } }),
      user(
        { type: "tool_result", tool_use_id: "a", content: "file" },
        { type: "tool_result", tool_use_id: "b", content: "permission denied", is_error: true },
      ),
    ].flatMap(read);
    expect(brief(activity).slice(2)).toEqual(["end command ls exit=0", "end command rm x failed"]);
  });

  it("gives no exit code for a command whose non-zero exit Claude Code read as an answer", () => {
    const read = makeClaudeToolCallReader();
    read(assistant({ type: "tool_use", id: "t", name: "Bash", input: { command: "test -f x" } }));
    const activity = read({
      ...user({
        type: "tool_result",
        tool_use_id: "t",
        content: "(Bash completed with no output)",
      }),
      tool_use_result: { stdout: "", returnCodeInterpretation: "Condition is false" },
    });
    expect(brief(activity)).toEqual(["end command test -f x"]);
  });
});

describe("codex exec --json events", () => {
  it("pairs item.started with item.completed, with a command's exit code", () => {
    const read = makeCodexToolCallReader();
    const command = { id: "item_1", type: "command_execution", command: "bash -lc 'npm test'" };
    const activity = [
      { type: "thread.started", thread_id: "th" },
      { type: "item.started", item: { ...command, status: "in_progress", exit_code: null } },
      { type: "item.completed", item: { ...command, status: "failed", exit_code: 2 } },
      { type: "item.completed", item: { id: "item_2", type: "agent_message", text: "done" } },
    ].flatMap(read);
    expect(brief(activity)).toEqual([
      "start command npm test",
      "end command npm test exit=2 failed",
    ]);
  });

  it("names a command by what the model asked for, not codex's shell around it", () => {
    const read = makeCodexToolCallReader();
    const command = (id: string, text: string) => ({
      type: "item.completed",
      item: { id, type: "command_execution", command: text, exit_code: 0, status: "completed" },
    });
    const targets = [
      command("a", "/bin/bash -lc 'echo '\\''hi'\\'' > x'"),
      command("b", "git status"),
    ]
      .flatMap(read)
      .filter((activity) => activity.phase === "end")
      .map((activity) => activity.call.target);
    expect(targets).toEqual(["echo 'hi' > x", "git status"]);
  });

  it("names a file change by its paths (a write when every change adds), and starts a call seen only completed", () => {
    const read = makeCodexToolCallReader();
    const change = (kind: string) => ({
      type: "item.completed",
      item: {
        id: `change-${kind}`,
        type: "file_change",
        status: "completed",
        changes: [
          { path: "/w/a.ts", kind },
          { path: "/w/b.ts", kind },
        ],
      },
    });
    expect(brief([change("add"), change("update")].flatMap(read))).toEqual([
      "start write /w/a.ts, /w/b.ts",
      "end write /w/a.ts, /w/b.ts",
      "start edit /w/a.ts, /w/b.ts",
      "end edit /w/a.ts, /w/b.ts",
    ]);
  });
});

describe("opencode run --format json events", () => {
  it("reads a finished tool_use as its start and end, with a command's exit", () => {
    const event = (tool: string, input: unknown, state: Record<string, unknown>) => ({
      type: "tool_use",
      part: { callID: tool, tool, state: { input, ...state } },
    });
    const activity = [
      event("write", { filePath: "/w/a.ts" }, { status: "completed" }),
      event("bash", { command: "npm test" }, { status: "completed", metadata: { exit: 1 } }),
      event("read", { filePath: "/w/x" }, { status: "error", error: "no such file" }),
      event("bash", { command: "ls" }, { status: "running" }),
      { type: "text", part: { text: "done" } },
    ].flatMap(readOpencodeToolCall);
    expect(brief(activity)).toEqual([
      "start write /w/a.ts",
      "end write /w/a.ts",
      "start command npm test",
      "end command npm test exit=1 failed",
      "start read /w/x",
      "end read /w/x failed",
    ]);
  });
});

describe("naming a tool call", () => {
  it("knows each backend's names for the same action, and calls the rest other", () => {
    expect(["Write", "write", "create_file"].map(actionOf)).toEqual(["write", "write", "write"]);
    expect(["Edit", "MultiEdit", "apply_patch"].map(actionOf)).toEqual(["edit", "edit", "edit"]);
    expect(["Bash", "bash", "command_execution"].map(actionOf)).toEqual([
      "command",
      "command",
      "command",
    ]);
    expect(["Grep", "Glob", "web_search", "WebFetch", "TodoWrite"].map(actionOf)).toEqual([
      "search",
      "search",
      "search",
      "fetch",
      "other",
    ]);
  });

  it("takes the most telling field as the target, on one line and cut to 200 characters", () => {
    expect(targetOf({ description: "d", command: "npm test" })).toBe("npm test");
    expect(targetOf({ command: ["bash", "-lc", "ls"] })).toBe("bash -lc ls");
    expect(targetOf({ pattern: `${"x".repeat(300)}` })).toHaveLength(200);
    expect(targetOf({ nothing: 1 })).toBe("");
  });
});

describe("reading tool calls from an agent CLI's lines", () => {
  it("parses JSON lines, passes over the rest, and listens to nothing when nobody asked", () => {
    const heard: ToolActivity[] = [];
    const onLine = toolCallsFromLines(readOpencodeToolCall, (activity) => heard.push(activity));
    const line = JSON.stringify({
      type: "tool_use",
      part: { callID: "c", tool: "bash", state: { status: "completed", input: { command: "ls" } } },
    });
    for (const text of ["starting…", "{not json", line]) onLine?.(text);
    expect(brief(heard)).toEqual(["start command ls", "end command ls"]);
    expect(toolCallsFromLines(readOpencodeToolCall, undefined)).toBeUndefined();
  });
});
