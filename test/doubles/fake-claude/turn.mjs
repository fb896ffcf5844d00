/** One scripted turn: the messages Claude Code writes between a user message and its result. */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  apiRetryMessage,
  assistantMessage,
  initMessage,
  rateLimitEvent,
  resultMessage,
  sessionStateMessage,
  toolResultMessage,
} from "./messages.mjs";
import { useTool } from "./tools.mjs";

const DEFAULT_MODEL = "claude-fake-default";
const TOOLS = ["Bash", "Edit", "Glob", "Grep", "Read", "Write", "WebFetch", "TodoWrite"];

/**
 * Failures that end with an API error, as Claude Code reports them: `error` is
 * the assistant message's error field (Claude Code files a 529 under
 * `server_error`, like every 5xx), `status` the result's `api_error_status`
 * (null when no HTTP answer came).
 */
const API_FAILURES = {
  rate_limit: {
    status: 429,
    error: "rate_limit",
    text: 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
  },
  overloaded: {
    status: 529,
    error: "server_error",
    text: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  },
  server_error: {
    status: 500,
    error: "server_error",
    text: 'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_011CFakeInternalError"}',
  },
  service_unavailable: {
    status: 503,
    error: "server_error",
    text: "API Error: 503 no healthy upstream",
  },
  connection_reset: {
    status: null,
    error: "unknown",
    text: "API Error: Unable to connect to API (ECONNRESET)",
  },
  connection_refused: {
    status: null,
    error: "unknown",
    text: "API Error: Unable to connect to API (ECONNREFUSED)",
  },
  auth: {
    status: 401,
    error: "authentication_failed",
    text: "Invalid API key · Please run /login",
  },
};

const ERROR_SUBTYPES = {
  max_turns: "error_max_turns",
  max_budget: "error_max_budget_usd",
  execution_error: "error_during_execution",
  structured_output_retries: "error_max_structured_output_retries",
};

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function defaultUsage(turn) {
  const isSuccess = (turn.outcome ?? "success") === "success";
  return {
    input_tokens: isSuccess ? 100 : 0,
    output_tokens: isSuccess ? 50 : 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    ...turn.usage,
  };
}

/** Starts a long-lived child and never answers: for timeout and cancellation tests. */
async function hang(context) {
  const child = spawn("sleep", ["3600"], { stdio: "ignore" });
  context.log({ event: "child", childPid: child.pid, command: "sleep 3600" });
  await new Promise(() => {});
}

async function runActions(context, io, session, turn) {
  const denials = [];
  for (const action of turn.actions ?? []) {
    if (action.text !== undefined) {
      io.send(assistantMessage(session.id, session.model, [{ type: "text", text: action.text }]));
      continue;
    }
    const toolUseId = `toolu_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
    const input = action.input ?? {};
    io.send(
      assistantMessage(session.id, session.model, [
        { type: "tool_use", id: toolUseId, name: action.tool, input },
      ]),
    );
    const call = { tool: action.tool, input, toolUseId, sessionId: session.id };
    const outcome = await useTool(context, io, call);
    if (outcome.denied)
      denials.push({ tool_name: action.tool, tool_use_id: toolUseId, tool_input: input });
    io.send(toolResultMessage(session.id, toolUseId, outcome.content, outcome.isError));
  }
  return denials;
}

function sendStructuredOutput(context, io, session, turn) {
  if (turn.structuredOutput === undefined || context.options.jsonSchema === undefined)
    return undefined;
  const toolUseId = `toolu_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  io.send(
    assistantMessage(session.id, session.model, [
      { type: "tool_use", id: toolUseId, name: "StructuredOutput", input: turn.structuredOutput },
    ]),
  );
  io.send(
    toolResultMessage(session.id, toolUseId, "Structured output provided successfully", false),
  );
  return turn.structuredOutput;
}

/** The result fields that depend on how the turn ends. */
function ending(context, io, session, turn) {
  const outcome = turn.outcome ?? "success";
  const failure = API_FAILURES[outcome];
  if (failure) {
    io.send(
      assistantMessage(
        session.id,
        session.model,
        [{ type: "text", text: failure.text }],
        turn.assistantError ?? failure.error,
      ),
    );
    return {
      subtype: "success",
      isError: true,
      text: failure.text,
      apiErrorStatus: failure.status,
    };
  }
  const subtype = ERROR_SUBTYPES[outcome];
  if (subtype) {
    return { subtype, isError: true, errors: turn.errorMessage ? [turn.errorMessage] : [] };
  }
  const structuredOutput = sendStructuredOutput(context, io, session, turn);
  const text =
    turn.text ?? (structuredOutput === undefined ? "Done." : JSON.stringify(structuredOutput));
  io.send(assistantMessage(session.id, session.model, [{ type: "text", text }]));
  return { subtype: "success", isError: false, text, structuredOutput };
}

/**
 * Answers one user message from the next turn of the script.
 * @returns {Promise<{ isError: boolean }>}
 */
export async function runTurn(context, io, session, prompt) {
  const taken = context.state.takeTurn();
  const turn = taken?.turn ?? {
    outcome: "execution_error",
    errorMessage: "fake-claude: the script has no turn left",
  };
  const startedAt = Date.now();
  session.id ??= context.options.resume ?? turn.sessionId ?? randomUUID();
  context.log({
    event: "turn",
    index: taken?.index ?? null,
    prompt,
    sessionId: session.id,
    outcome: turn.outcome ?? "success",
  });
  if (turn.outcome === "session_not_found") {
    process.stderr.write(`No conversation found with session ID: ${session.id}\n`);
    process.exit(1);
  }
  context.state.registerSession(session.id);
  if (turn.delayMs) await sleep(turn.delayMs);
  const tools = TOOLS.filter((tool) => !context.options.disallowedTools.includes(tool));
  io.send(
    initMessage({
      sessionId: session.id,
      cwd: context.cwd,
      model: session.model,
      permissionMode: context.options.permissionMode,
      tools,
    }),
  );
  io.send(sessionStateMessage(session.id, "running"));
  const failure = API_FAILURES[turn.outcome ?? ""];
  const retries = turn.apiRetries ?? (failure && turn.outcome !== "auth" ? 2 : 0);
  for (let attempt = 1; attempt <= retries; attempt++) {
    const status = failure === undefined ? (turn.retryStatus ?? 429) : failure.status;
    const error = failure?.error ?? (status === 529 ? "overloaded" : "rate_limit");
    io.send(apiRetryMessage(session.id, { attempt, maxRetries: retries, status, error }));
  }
  if (turn.resetsAt !== undefined) io.send(rateLimitEvent(session.id, turn.resetsAt));
  if (turn.outcome === "hang") await hang(context);
  const denials = await runActions(context, io, session, turn);
  if (turn.outcome === "crash") {
    process.stderr.write(`${turn.errorMessage ?? "fake-claude: crashed"}\n`);
    context.log({ event: "exit", code: 2, reason: "crash" });
    process.exit(2);
  }
  const end = ending(context, io, session, turn);
  const turnUsage = defaultUsage(turn);
  const costUsd = turn.costUsd ?? (end.isError ? 0 : 0.01);
  const totals = context.state.addToSession(session.id, costUsd, turnUsage);
  const numTurns = (turn.actions?.length ?? 0) + 1;
  const durationMs = Date.now() - startedAt;
  io.send(
    resultMessage({
      ...end,
      sessionId: session.id,
      model: session.model,
      numTurns,
      durationMs,
      turnUsage,
      totals,
      denials,
    }),
  );
  io.send(sessionStateMessage(session.id, "idle"));
  return { isError: end.isError };
}

/** @param {{ model?: string }} options */
export function newSession(options) {
  return { id: undefined, model: options.model ?? DEFAULT_MODEL };
}
