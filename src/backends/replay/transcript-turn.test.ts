import { describe, expect, it } from "vitest";
import { turnFromTranscript } from "./transcript-turn.js";

const CWD = "/recorded/tree";
const DONE = { status: "completed", summary: "fixed add" };
const SCHEMA = {
  type: "object",
  required: ["status"],
  properties: { status: { type: "string" }, summary: { type: "string" } },
};

/** An AI SDK message of the openai-compatible backend's transcript. */
const assistant = (...content: unknown[]) => ({ role: "assistant", content });
const toolResult = (toolCallId: string, toolName: string, value: string) => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId, toolName, output: { type: "text", value } }],
});
const call = (toolCallId: string, toolName: string, input: unknown) => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input,
});

describe("docs/replay.md#backends: each backend's transcript read as that backend read it", () => {
  it("openai-compatible: the last assistant message's text is the answer, its file tools the changes", () => {
    const transcript = [
      { role: "user", content: "fix it" },
      assistant(
        { type: "text", text: "Looking." },
        call("c1", "edit", { path: "a.js", old_string: "-", new_string: "+" }),
      ),
      toolResult("c1", "edit", "edited a.js"),
      assistant(
        call("c2", "write", { path: "b.js", content: "b" }),
        call("c3", "edit", { path: "c.js", old_string: "x", new_string: "y" }),
      ),
      toolResult("c2", "write", "wrote b.js (1 characters)"),
      toolResult("c3", "edit", "error: old_string occurs 0 times in c.js"),
      assistant(
        { type: "text", text: '{"status":"completed",' },
        { type: "text", text: '"summary":null}' },
      ),
    ];

    const turn = turnFromTranscript(transcript, CWD, { hasStructuredOutput: true, schema: SCHEMA });

    expect(turn.text).toBe('{"status":"completed","summary":null}');
    // The strict schema's null stands for an absent optional property.
    expect(turn.structuredOutput).toEqual({ status: "completed" });
    expect(turn.toolsUsed).toEqual(["edit", "write", "edit"]);
    expect(turn.files).toEqual({ "b.js": "b" });
    expect(turn.edits).toEqual([{ path: "a.js", oldText: "-", newText: "+" }]);
  });

  it("openai-compatible with the answer tool: its input is the answer, as JSON its text", () => {
    const transcript = [
      { role: "user", content: "fix it" },
      assistant({ type: "text", text: "Done." }, call("c1", "answer", DONE)),
      toolResult("c1", "answer", "answer received"),
    ];

    const turn = turnFromTranscript(transcript, CWD, { hasStructuredOutput: true });

    expect(turn.structuredOutput).toEqual(DONE);
    expect(turn.text).toBe(JSON.stringify(DONE));
    expect(turn.toolsUsed).toBeUndefined();
  });

  it("an answer the backend refused for its schema, or none the record says it gave, is no structured output", () => {
    const refused = [
      assistant({ type: "text", text: '{"status":42}' }),
      { type: "closer", subtype: "structured_output_invalid", errors: ["/status must be string"] },
    ];
    expect(turnFromTranscript(refused, CWD)).toEqual({ text: '{"status":42}' });

    const claude = [
      {
        type: "result",
        subtype: "success",
        is_error: false,
        result: "x",
        structured_output: { status: 42 },
      },
      { type: "closer", subtype: "structured_output_invalid", errors: ["/status must be string"] },
    ];
    expect(turnFromTranscript(claude, CWD).structuredOutput).toBeUndefined();

    const codex = [
      {
        type: "item.completed",
        item: { id: "i0", type: "agent_message", text: JSON.stringify(DONE) },
      },
    ];
    expect(turnFromTranscript(codex, CWD).structuredOutput).toEqual(DONE);
    expect(
      turnFromTranscript(codex, CWD, { hasStructuredOutput: false }).structuredOutput,
    ).toBeUndefined();
  });

  it("codex: the answer in the strict schema loses the nulls of its absent optional properties", () => {
    const codex = [
      {
        type: "item.completed",
        item: { id: "i0", type: "agent_message", text: '{"status":"completed","summary":null}' },
      },
    ];
    const turn = turnFromTranscript(codex, CWD, { hasStructuredOutput: true, schema: SCHEMA });
    expect(turn.structuredOutput).toEqual({ status: "completed" });
  });

  it("opencode: the answer is every text of the last message that said anything, a line apart", () => {
    const part = (type: string, messageID: string, extra: Record<string, unknown>) => ({
      type,
      sessionID: "ses_1",
      part: { messageID, ...extra },
    });
    const transcript = [
      part("text", "m1", { text: "first message" }),
      part("text", "m2", { text: "I fixed it." }),
      part("tool_use", "m2", { tool: "bash", state: { status: "completed", input: {} } }),
      part("text", "m2", { text: "COMPLETE" }),
    ];
    const turn = turnFromTranscript(transcript, CWD);
    expect(turn.text).toBe("I fixed it.\nCOMPLETE");
    expect(turn.toolsUsed).toEqual(["bash"]);
  });

  it("command: a usage line the program printed is not part of its answer", () => {
    const usage = JSON.stringify({ usage: { inputTokens: 1, outputTokens: 2 }, costUsd: 0.01 });
    const transcript = [{ stdout: `The tests pass.\n${usage}\nCOMPLETE`, stderr: "", exitCode: 0 }];
    expect(turnFromTranscript(transcript, CWD).text).toBe("The tests pass.\nCOMPLETE");
  });

  it("claude: an assistant message reporting an API failure is not the model's words", () => {
    const transcript = [
      { type: "assistant", message: { content: [{ type: "text", text: "Working on it." }] } },
      {
        type: "assistant",
        error: "rate_limit",
        message: { content: [{ type: "text", text: "API Error: 429" }] },
      },
    ];
    expect(turnFromTranscript(transcript, CWD).text).toBe("Working on it.");
  });
});
