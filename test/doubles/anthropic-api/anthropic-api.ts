/**
 * A scripted model on loopback for the real Claude Code: it speaks the
 * Anthropic Messages API (`POST /v1/messages`, streaming SSE or one JSON
 * message, as the request asks), answers the model's requests with the next
 * step of its script, and logs every request it gets.
 *
 * A script is a list of turns; a turn is tool calls (each its own response,
 * one `tool_use` block, in order) and then a final answer. When the turn has
 * a `structuredOutput` and the request offers Claude Code's `StructuredOutput`
 * tool (how an SDK `outputFormat` of type `json_schema` reaches the API), the
 * final answer is a call of that tool with it as the input; otherwise it is
 * the turn's text (or the structured output as JSON text). The next request
 * starts the next turn.
 *
 * Which requests take a step: a `/v1/messages` request whose `tools` list is
 * not empty is the model at work. A request offering no tools is a side
 * request of Claude Code's (a title, a summary, a quota probe): it gets a
 * fixed text answer and takes no step. `/v1/messages/count_tokens` gets a
 * fixed count. Every response reports the same usage (input and output
 * tokens), which Claude Code prices and closer accounts for. A request
 * after the script's end gets a 400 (not a 5xx, which
 * Claude Code would retry for minutes). Anything else is logged and gets a
 * 404; a CONNECT (the server doubles as the HTTP proxy, to catch calls home)
 * is logged and refused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ContentBlock, sendError, sendJson, sendMessage } from "./send-message.js";

/** One tool call of the model, e.g. `{name: "Bash", input: {command: "ls"}}`. */
export interface AnthropicToolCall {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

export interface AnthropicTurn {
  /** Tool calls, one response each, before the final answer. */
  readonly toolCalls?: readonly AnthropicToolCall[];
  /** The declaration, sent as the `StructuredOutput` tool call when the request offers it. */
  readonly structuredOutput?: unknown;
  /** Text of the final answer (beside the structured output, or alone). */
  readonly text?: string;
}

export interface AnthropicRequestLog {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown>;
  /**
   * What was served: `tool:<name>`, `structured-output`, `text`, `side`,
   * `count-tokens`, `exhausted`, `error` (the script calls a tool the request
   * does not offer), `not-found` or `connect`.
   */
  readonly served: string;
}

export interface AnthropicApi {
  /** e.g. `http://127.0.0.1:PORT`, for ANTHROPIC_BASE_URL (and as a proxy that refuses all). */
  readonly baseUrl: string;
  readonly requests: AnthropicRequestLog[];
  /**
   * Replace the script and start from its first step. Tool use ids
   * (`toolu_scripted_<n>`) keep counting, so a resumed session never sees one twice.
   */
  script(turns: readonly AnthropicTurn[]): void;
  close(): Promise<void>;
}

export interface AnthropicApiOptions {
  /** Usage reported per response; default 100 input and 20 output tokens. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /** The answer of side requests; default `OK`. */
  readonly sideAnswer?: string;
}

/** The tool through which Claude Code takes an `outputFormat` of type `json_schema`. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/** A Bash tool call of Claude Code's. */
export function bashCall(command: string, description = "Run a command"): AnthropicToolCall {
  return { name: "Bash", input: { command, description } };
}

/** A Write tool call of Claude Code's; `filePath` must be absolute. */
export function writeCall(filePath: string, content: string): AnthropicToolCall {
  return { name: "Write", input: { file_path: filePath, content } };
}

export interface ToolResult {
  readonly toolUseId: string;
  readonly content: string;
  readonly isError: boolean;
}

/** The tool results a request carries back, in the order of its messages. */
export function toolResultsOf(request: AnthropicRequestLog): ToolResult[] {
  const messages = Array.isArray(request.body.messages)
    ? (request.body.messages as { content?: unknown }[])
    : [];
  const blocks = messages.flatMap((message) =>
    Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [],
  );
  return blocks
    .filter((block) => block.type === "tool_result")
    .map((block) => ({
      toolUseId: String(block.tool_use_id),
      content: textOf(block.content),
      isError: block.is_error === true,
    }));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : ""))
    .join("");
}

type Step =
  | { readonly kind: "tool"; readonly call: AnthropicToolCall }
  | { readonly kind: "answer"; readonly turn: AnthropicTurn };

function stepsOf(turns: readonly AnthropicTurn[]): Step[] {
  return turns.flatMap((turn): Step[] => [
    ...(turn.toolCalls ?? []).map((call) => ({ kind: "tool" as const, call })),
    { kind: "answer", turn },
  ]);
}

interface Answer {
  readonly served: string;
  readonly content: readonly ContentBlock[];
}

export interface OfferedTool {
  readonly name: string;
  readonly input_schema?: Record<string, unknown>;
}

/** The tools a request offers the model. */
export function offeredToolsOf(body: Record<string, unknown>): OfferedTool[] {
  return Array.isArray(body.tools) ? (body.tools as OfferedTool[]) : [];
}

function toolNamesOf(body: Record<string, unknown>): string[] {
  return offeredToolsOf(body).map((tool) => String(tool.name ?? ""));
}

/** The content of one step, fitted to the tools the request offers. */
function answerOf(step: Step, offered: readonly string[], toolUseId: string): Answer {
  if (step.kind === "tool") {
    if (!offered.includes(step.call.name)) {
      throw new Error(`the script calls ${step.call.name}; offered: ${offered.join(", ")}`);
    }
    const call = { type: "tool_use" as const, id: toolUseId, ...step.call };
    return { served: `tool:${step.call.name}`, content: [call] };
  }
  const { text, structuredOutput } = step.turn;
  const textBlocks = text === undefined ? [] : [{ type: "text" as const, text }];
  if (structuredOutput !== undefined && offered.includes(STRUCTURED_OUTPUT_TOOL)) {
    const input = structuredOutput as Readonly<Record<string, unknown>>;
    const call = { type: "tool_use" as const, id: toolUseId, name: STRUCTURED_OUTPUT_TOOL, input };
    return { served: "structured-output", content: [...textBlocks, call] };
  }
  const answer = text ?? JSON.stringify(structuredOutput ?? "");
  return { served: "text", content: [{ type: "text", text: answer }] };
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of request) text += chunk;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function startAnthropicApi(options: AnthropicApiOptions = {}): Promise<AnthropicApi> {
  let steps: Step[] = [];
  let next = 0;
  let toolUseCount = 0;
  const requests: AnthropicRequestLog[] = [];
  const usage = options.usage ?? { inputTokens: 100, outputTokens: 20 };
  const sideAnswer = options.sideAnswer ?? "OK";

  /** The answer of a `/v1/messages` request: a step of the script, or the side answer. */
  function answerTo(body: Record<string, unknown>): Answer | undefined {
    const offered = toolNamesOf(body);
    if (offered.length === 0)
      return { served: "side", content: [{ type: "text", text: sideAnswer }] };
    const step = steps[next];
    if (step === undefined) return undefined;
    next += 1;
    toolUseCount += 1;
    return answerOf(step, offered, `toolu_scripted_${toolUseCount}`);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? "";
    const path = request.url ?? "";
    const body = await readBody(request);
    const log = (served: string) =>
      requests.push({ method, path, headers: request.headers, body, served });
    const route = path.split("?")[0];
    if (method === "POST" && route === "/v1/messages/count_tokens") {
      log("count-tokens");
      sendJson(response, 200, { input_tokens: usage.inputTokens });
      return;
    }
    if (method !== "POST" || route !== "/v1/messages") {
      log("not-found");
      sendError(response, 404, "not_found_error", `no route ${method} ${path}`);
      return;
    }
    let answer: Answer | undefined;
    try {
      answer = answerTo(body);
    } catch (error) {
      log("error");
      sendError(response, 400, "invalid_request_error", (error as Error).message);
      return;
    }
    if (answer === undefined) {
      log("exhausted");
      sendError(response, 400, "invalid_request_error", "the scripted model has no more turns");
      return;
    }
    log(answer.served);
    const message = {
      id: `msg_scripted_${requests.length}`,
      model: String(body.model ?? "scripted"),
      content: answer.content,
      usage,
    };
    sendMessage(response, message, { stream: body.stream === true });
  }

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      sendError(response, 500, "api_error", String(error));
    });
  });
  server.on("connect", (request, socket) => {
    requests.push({
      method: "CONNECT",
      path: request.url ?? "",
      headers: request.headers,
      body: {},
      served: "connect",
    });
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script(turns) {
      steps = stepsOf(turns);
      next = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
