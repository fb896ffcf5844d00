/**
 * A scripted model on loopback for the real agent CLIs: it speaks the Chat
 * Completions API (`/v1/chat/completions`, streaming and not) and the
 * Responses API (`/v1/responses`, streaming), answers each request with the
 * next step of its script, and logs every request.
 *
 * A script is a list of turns; a turn is shell commands to run (one tool call
 * each, in order) and then a final answer. Each request takes the next step:
 * a tool call while the turn has commands left, else the turn's answer, after
 * which the next request starts the next turn. A shell command is fitted to
 * the shell tool the request offers (`exec_command` with `cmd` as a string,
 * `shell` with `command` as an array, opencode's `bash` with `command` as a
 * string). A request after the script's end gets an HTTP 500.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ModelTurn {
  /** Shell commands, one tool call each, before the answer. */
  readonly commands?: readonly string[];
  /** The final assistant text, e.g. the JSON declaration. */
  readonly answer: string;
}

export interface ModelRequestLog {
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** The step served: `tool:<command>`, `answer`, `fixed` or `exhausted`. */
  readonly served: string;
}

export interface ModelServer {
  /** e.g. `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string;
  readonly requests: ModelRequestLog[];
  /** Replace the script and start from its first step (and tool call id `call_1`). */
  script(turns: readonly ModelTurn[]): void;
  close(): Promise<void>;
}

export interface ModelServerOptions {
  /** Every request gets this text as the answer (for title and other side requests). */
  readonly fixedAnswer?: string;
  /** Usage reported per response. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
}

type Step = { readonly command: string } | { readonly answer: string };

function stepsOf(turns: readonly ModelTurn[]): Step[] {
  return turns.flatMap((turn) => [
    ...(turn.commands ?? []).map((command) => ({ command })),
    { answer: turn.answer },
  ]);
}

interface ToolShape {
  readonly name: string;
  readonly properties: Record<string, { type?: unknown }>;
  readonly required: readonly string[];
}

const SHELL_TOOLS = ["exec_command", "shell_command", "shell", "bash", "local_shell"];

/** The shell tool a request offers, from Chat (`{function: {...}}`) or Responses (`{name, parameters}`) tool lists. */
function shellToolOf(body: Record<string, unknown>): ToolShape {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  const shapes = tools.map((tool) => {
    const fn = (tool.function ?? tool) as Record<string, unknown>;
    const parameters = (fn.parameters ?? {}) as Record<string, unknown>;
    return {
      name: String(fn.name ?? tool.type ?? ""),
      properties: (parameters.properties ?? {}) as Record<string, { type?: unknown }>,
      required: Array.isArray(parameters.required) ? (parameters.required as string[]) : [],
    };
  });
  for (const name of SHELL_TOOLS) {
    const found = shapes.find((shape) => shape.name === name);
    if (found !== undefined) return found;
  }
  throw new Error(`no shell tool offered; tools: ${shapes.map((s) => s.name).join(", ")}`);
}

/** Arguments for the offered shell tool that run `command`. */
export function shellArguments(tool: ToolShape, command: string): Record<string, unknown> {
  const key = "cmd" in tool.properties ? "cmd" : "command";
  const args: Record<string, unknown> = {
    [key]: tool.properties[key]?.type === "array" ? ["bash", "-lc", command] : command,
  };
  for (const name of tool.required) {
    if (name in args) continue;
    const type = tool.properties[name]?.type;
    if (type === "string") args[name] = name === "workdir" ? "." : "run a command";
    if (type === "number" || type === "integer") args[name] = 60_000;
  }
  if ("timeout_ms" in tool.properties) args.timeout_ms = 60_000;
  return args;
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

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  let steps: Step[] = [];
  let next = 0;
  let callCount = 0;
  const requests: ModelRequestLog[] = [];
  const usage = options.usage ?? { inputTokens: 100, outputTokens: 20 };

  function nextStep(): Step | undefined {
    if (options.fixedAnswer !== undefined) return { answer: options.fixedAnswer };
    const step = steps[next];
    if (step !== undefined) next += 1;
    return step;
  }

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? "";
    if (request.method === "GET" && url.endsWith("/models")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "list", data: [{ id: "scripted", object: "model" }] }));
      return;
    }
    const body = await readBody(request);
    const isResponses = url.endsWith("/responses");
    const isChat = url.endsWith("/chat/completions");
    if (!isResponses && !isChat) {
      requests.push({ path: url, body, served: "unknown" });
      response.writeHead(404).end();
      return;
    }
    const step = nextStep();
    if (step === undefined) {
      requests.push({ path: url, body, served: "exhausted" });
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "the scripted model has no more turns" } }));
      return;
    }
    const served =
      "command" in step ? `tool:${step.command}` : options.fixedAnswer ? "fixed" : "answer";
    requests.push({ path: url, body, served });
    callCount += 1;
    const callId = `call_${callCount}`;
    const toolCall =
      "command" in step
        ? (() => {
            const tool = shellToolOf(body);
            return {
              name: tool.name,
              arguments: JSON.stringify(shellArguments(tool, step.command)),
            };
          })()
        : undefined;
    const text = "answer" in step ? step.answer : undefined;
    if (isResponses) sendResponses(response, callId, toolCall, text, usage);
    else if (body.stream === true) sendChatStream(response, callId, toolCall, text, usage);
    else sendChat(response, callId, toolCall, text, usage);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(turns) {
      steps = stepsOf(turns);
      next = 0;
      callCount = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type ToolCall = { readonly name: string; readonly arguments: string } | undefined;
type Usage = { readonly inputTokens: number; readonly outputTokens: number };

function sse(response: ServerResponse): (data: unknown, event?: string) => void {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  return (data, event) => {
    if (event !== undefined) response.write(`event: ${event}\n`);
    response.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  };
}

function sendResponses(
  response: ServerResponse,
  callId: string,
  toolCall: ToolCall,
  text: string | undefined,
  usage: Usage,
): void {
  const send = sse(response);
  const id = `resp_${callId}`;
  const emit = (data: Record<string, unknown>) => send(data, String(data.type));
  emit({ type: "response.created", response: { id } });
  const item =
    toolCall !== undefined
      ? {
          type: "function_call",
          id: `fc_${callId}`,
          call_id: callId,
          name: toolCall.name,
          arguments: toolCall.arguments,
        }
      : {
          type: "message",
          id: `msg_${callId}`,
          role: "assistant",
          content: [{ type: "output_text", text: text ?? "", annotations: [] }],
        };
  emit({ type: "response.output_item.added", output_index: 0, item });
  if (text !== undefined) {
    emit({
      type: "response.output_text.delta",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: text,
    });
  }
  emit({ type: "response.output_item.done", output_index: 0, item });
  emit({
    type: "response.completed",
    response: {
      id,
      usage: {
        input_tokens: usage.inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.inputTokens + usage.outputTokens,
      },
    },
  });
  response.end();
}

function chatUsage(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function sendChatStream(
  response: ServerResponse,
  callId: string,
  toolCall: ToolCall,
  text: string | undefined,
  usage: Usage,
): void {
  const send = sse(response);
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra = {}) => ({
    id: `chatcmpl_${callId}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: "scripted",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  send(chunk({ role: "assistant", content: "" }, null));
  if (toolCall !== undefined) {
    send(
      chunk(
        {
          tool_calls: [
            {
              index: 0,
              id: callId,
              type: "function",
              function: { name: toolCall.name, arguments: toolCall.arguments },
            },
          ],
        },
        null,
      ),
    );
    send(chunk({}, "tool_calls"));
  } else {
    send(chunk({ content: text ?? "" }, null));
    send(chunk({}, "stop"));
  }
  send({
    id: `chatcmpl_${callId}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: "scripted",
    choices: [],
    usage: chatUsage(usage),
  });
  send("[DONE]");
  response.end();
}

function sendChat(
  response: ServerResponse,
  callId: string,
  toolCall: ToolCall,
  text: string | undefined,
  usage: Usage,
): void {
  const message =
    toolCall !== undefined
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: callId, type: "function", function: toolCall }],
        }
      : { role: "assistant", content: text ?? "" };
  response.writeHead(200, { "content-type": "application/json" });
  response.end(
    JSON.stringify({
      id: `chatcmpl_${callId}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: "scripted",
      choices: [
        {
          index: 0,
          message,
          finish_reason: toolCall !== undefined ? "tool_calls" : "stop",
        },
      ],
      usage: chatUsage(usage),
    }),
  );
}
