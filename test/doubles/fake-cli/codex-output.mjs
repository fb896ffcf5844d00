/** What `codex exec --json` prints for a fake turn. */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { crash, DEFAULT_USAGE, finalText, printJson } from "./fake-cli-output.mjs";

// ── codex exec --json ──────────────────────────────────────────────────────

export function answerCodex(turn, options) {
  if (turn.fail === "crash") return crash("codex");
  if (turn.fail === "session_expired") {
    process.stderr.write(`Error: no rollout found for thread id ${options.resume}\n`);
    return 1;
  }
  const threadId = turn.sessionId ?? options.resume ?? randomUUID();
  printJson({ type: "thread.started", thread_id: threadId });
  printJson({ type: "turn.started" });
  const failure = codexFailure(turn);
  if (failure) {
    printJson({ type: "error", message: `${failure}; retrying 1/5 in 190ms…` });
    printJson({ type: "turn.failed", error: { message: failure } });
    return 1;
  }
  let itemNumber = 0;
  const nextId = () => `item_${itemNumber++}`;
  printJson({
    type: "item.completed",
    item: { id: nextId(), type: "reasoning", text: "**Planning the change**" },
  });
  for (const tool of turn.tools ?? []) {
    const id = nextId();
    const command = `bash -lc '${tool}'`;
    printJson({
      type: "item.started",
      item: {
        id,
        type: "command_execution",
        command,
        aggregated_output: "",
        exit_code: null,
        status: "in_progress",
      },
    });
    printJson({
      type: "item.completed",
      item: {
        id,
        type: "command_execution",
        command,
        aggregated_output: "",
        exit_code: 0,
        status: "completed",
      },
    });
  }
  const changes = Object.keys(turn.files ?? {}).map((file) => ({
    path: path.resolve(file),
    kind: turn.files[file] === null ? "delete" : "add",
  }));
  if (changes.length > 0) {
    printJson({
      type: "item.completed",
      item: { id: nextId(), type: "file_change", changes, status: "completed" },
    });
  }
  const structured = options.schemaFile !== undefined && turn.structuredOutput !== undefined;
  const text = structured ? JSON.stringify(turn.structuredOutput) : finalText(turn);
  printJson({ type: "item.completed", item: { id: nextId(), type: "agent_message", text } });
  const usage = { ...DEFAULT_USAGE, ...turn.usage };
  printJson({
    type: "turn.completed",
    usage: {
      input_tokens: usage.inputTokens + usage.cacheReadTokens,
      cached_input_tokens: usage.cacheReadTokens,
      output_tokens: usage.outputTokens,
    },
  });
  return 0;
}

function codexFailure(turn) {
  switch (turn.fail) {
    case "rate_limit":
      return "exceeded retry limit, last status: 429 Too Many Requests, request id: req_fake";
    // The OpenAI API has no 529: its overload is a 503, as for server_error.
    case "overloaded":
    case "server_error":
      return "exceeded retry limit, last status: 503 Service Unavailable, request id: req_fake";
    case "connection_reset":
      return "stream disconnected before completion: Connection reset by peer (os error 104)";
    // A refused connection reaches codex as a request that could not be sent.
    case "connection_refused":
      return "stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)";
    case "auth":
      return 'unexpected status 401 Unauthorized: {"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}';
    case "max_turns":
      return "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.";
    default:
      return undefined;
  }
}
