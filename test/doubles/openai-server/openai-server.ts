/**
 * A scripted OpenAI-compatible endpoint on loopback: `POST /v1/chat/completions`
 * as OpenAI speaks it, non-streaming and streaming (SSE `data:` chunks ending
 * in `[DONE]`), with `tool_calls`, `usage`, and the errors a real endpoint
 * gives (429 with `retry-after`, 401). It answers each request with the next
 * reply of its script (or what a function of the request returns) and keeps
 * every request it got, so tests can assert on what the client sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeToolCall {
  readonly name: string;
  /** An object is sent as its JSON; a string as it is (for malformed arguments). */
  readonly arguments: Readonly<Record<string, unknown>> | string;
}

/** One answer of the endpoint. */
export type FakeReply =
  | { readonly text: string }
  | { readonly toolCalls: readonly FakeToolCall[]; readonly text?: string }
  | { readonly status: number; readonly retryAfter?: string; readonly message?: string }
  /** Never answers; the connection stays open until the client gives up. */
  | { readonly hang: true };

/** A request as the fake saw it. */
export interface ChatRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Readonly<Record<string, unknown>>;
  readonly messages: readonly ChatMessage[];
  readonly stream: boolean;
}

export interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly {
    id: string;
    function: { name: string; arguments: string };
  }[];
  readonly tool_call_id?: string;
}

/** A step of the script: a reply, or one made from the request (`index` counts requests from 0). */
export type ScriptStep = FakeReply | ((request: ChatRequest, index: number) => FakeReply);

export interface FakeUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens?: number;
}

export interface OpenaiServerOptions {
  /** When set, a request without `Authorization: Bearer <apiKey>` gets a 401. */
  readonly apiKey?: string;
  /** Usage reported with every answer; default 100 prompt and 20 completion tokens. */
  readonly usage?: FakeUsage;
}

export interface OpenaiServer {
  /** e.g. `http://127.0.0.1:PORT/v1` */
  readonly baseURL: string;
  readonly requests: ChatRequest[];
  /** Replaces the script: each request takes the next step; past its end, a 500. */
  script(steps: readonly ScriptStep[]): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  401: "invalid_request_error",
  429: "rate_limit_exceeded",
};

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return JSON.parse(text === "" ? "{}" : text) as Record<string, unknown>;
}

function sendError(response: ServerResponse, status: number, message: string, headers = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(
    JSON.stringify({
      error: { message, type: ERROR_TYPES[status] ?? "server_error", param: null, code: null },
    }),
  );
}

function usageOf(usage: FakeUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
  };
}

function toolCallsOf(calls: readonly FakeToolCall[], first: number) {
  return calls.map((call, offset) => ({
    id: `call_${first + offset}`,
    type: "function",
    function: {
      name: call.name,
      arguments:
        typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

type Answer = { readonly text?: string; readonly toolCalls?: ReturnType<typeof toolCallsOf> };

function sendCompletion(response: ServerResponse, id: string, answer: Answer, usage: FakeUsage) {
  const message = {
    role: "assistant",
    content: answer.text ?? null,
    ...(answer.toolCalls === undefined ? {} : { tool_calls: answer.toolCalls }),
  };
  response.writeHead(200, { "content-type": "application/json" });
  response.end(
    JSON.stringify({
      id,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: "fake-model",
      choices: [
        {
          index: 0,
          message,
          finish_reason: answer.toolCalls === undefined ? "stop" : "tool_calls",
        },
      ],
      usage: usageOf(usage),
    }),
  );
}

/** The answer as SSE chunks, the way OpenAI streams: content and arguments in pieces. */
function sendStream(
  response: ServerResponse,
  id: string,
  answer: Answer,
  usage: FakeUsage | undefined,
) {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (data: unknown) =>
    response.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  send(chunk({ role: "assistant", content: "" }, null));
  const text = answer.text ?? "";
  const half = Math.ceil(text.length / 2);
  for (const piece of [text.slice(0, half), text.slice(half)]) {
    if (piece !== "") send(chunk({ content: piece }, null));
  }
  for (const [index, call] of (answer.toolCalls ?? []).entries()) {
    const args = call.function.arguments;
    const cut = Math.ceil(args.length / 2);
    send(
      chunk(
        {
          tool_calls: [
            {
              index,
              id: call.id,
              type: "function",
              function: { name: call.function.name, arguments: args.slice(0, cut) },
            },
          ],
        },
        null,
      ),
    );
    send(chunk({ tool_calls: [{ index, function: { arguments: args.slice(cut) } }] }, null));
  }
  send(chunk({}, answer.toolCalls === undefined ? "stop" : "tool_calls"));
  if (usage !== undefined) {
    send({ id, object: "chat.completion.chunk", choices: [], usage: usageOf(usage) });
  }
  send("[DONE]");
  response.end();
}

export async function startOpenaiServer(options: OpenaiServerOptions = {}): Promise<OpenaiServer> {
  const usage = options.usage ?? { promptTokens: 100, completionTokens: 20 };
  const requests: ChatRequest[] = [];
  let steps: readonly ScriptStep[] = [];
  let next = 0;
  let calls = 0;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? "";
    if (request.method !== "POST" || !path.endsWith("/v1/chat/completions")) {
      sendError(response, 404, `no route ${request.method} ${path}`);
      return;
    }
    const body = await readBody(request);
    const chat: ChatRequest = {
      path,
      headers: request.headers,
      body,
      messages: Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [],
      stream: body.stream === true,
    };
    const index = requests.length;
    requests.push(chat);
    if (
      options.apiKey !== undefined &&
      request.headers.authorization !== `Bearer ${options.apiKey}`
    ) {
      sendError(response, 401, "Incorrect API key provided.");
      return;
    }
    const step = steps[next];
    if (step === undefined) {
      sendError(response, 500, "the fake endpoint's script has no more replies");
      return;
    }
    next += 1;
    const reply = typeof step === "function" ? step(chat, index) : step;
    if ("hang" in reply) return;
    if ("status" in reply) {
      const headers = reply.retryAfter === undefined ? {} : { "retry-after": reply.retryAfter };
      sendError(response, reply.status, reply.message ?? `status ${reply.status}`, headers);
      return;
    }
    const id = `chatcmpl-${index + 1}`;
    const answer: Answer =
      "toolCalls" in reply
        ? {
            ...(reply.text === undefined ? {} : { text: reply.text }),
            toolCalls: toolCallsOf(reply.toolCalls, calls + 1),
          }
        : { text: reply.text };
    calls += answer.toolCalls?.length ?? 0;
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    if (chat.stream) {
      sendStream(response, id, answer, streamOptions?.include_usage === true ? usage : undefined);
    } else sendCompletion(response, id, answer, usage);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 400, String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script(replacement) {
      steps = replacement;
      next = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
