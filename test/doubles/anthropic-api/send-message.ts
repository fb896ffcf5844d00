/**
 * The Anthropic Messages API's answers on the wire: a message as one JSON
 * object or as the server-sent events of a streamed one, and the API's
 * error shape.
 */
import type { ServerResponse } from "node:http";

export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
    };

export interface ScriptedMessage {
  readonly id: string;
  readonly model: string;
  readonly content: readonly ContentBlock[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** An error as the API reports it, e.g. `invalid_request_error`. */
export function sendError(
  response: ServerResponse,
  status: number,
  type: string,
  message: string,
): void {
  sendJson(response, status, { type: "error", error: { type, message } });
}

/** The message, streamed when the request asked for a stream. */
export function sendMessage(
  response: ServerResponse,
  message: ScriptedMessage,
  options: { readonly stream: boolean },
): void {
  if (options.stream) sendStream(response, message);
  else sendJson(response, 200, messageOf(message, stopReasonOf(message.content)));
}

function stopReasonOf(content: readonly ContentBlock[]): "tool_use" | "end_turn" {
  return content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
}

function messageOf(message: ScriptedMessage, stopReason: string | null) {
  return {
    id: message.id,
    type: "message",
    role: "assistant",
    model: message.model,
    content: message.content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: message.usage.inputTokens,
      output_tokens: message.usage.outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

/** The message as server-sent events: start, each block (start, one delta, stop), delta, stop. */
function sendStream(response: ServerResponse, message: ScriptedMessage): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (data: { readonly type: string; readonly [field: string]: unknown }) =>
    response.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  const start = messageOf(message, null);
  send({
    type: "message_start",
    message: { ...start, content: [], usage: { ...start.usage, output_tokens: 1 } },
  });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      send({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
    } else {
      const { input, ...head } = block;
      send({ type: "content_block_start", index, content_block: { ...head, input: {} } });
      const partial_json = JSON.stringify(input);
      send({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      });
    }
    send({ type: "content_block_stop", index });
  });
  send({
    type: "message_delta",
    delta: { stop_reason: stopReasonOf(message.content), stop_sequence: null },
    usage: { output_tokens: message.usage.outputTokens },
  });
  send({ type: "message_stop" });
  response.end();
}
