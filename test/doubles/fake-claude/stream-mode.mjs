/**
 * `--input-format stream-json`: the SDK's protocol. JSON lines in both
 * directions; control requests are answered as they come (also while a turn
 * waits for a hook or permission answer); user messages run turns in order.
 */
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { newSession, runTurn } from "./turn.mjs";

const INITIALIZE_RESPONSE = {
  commands: [],
  agents: [],
  output_style: "default",
  available_output_styles: ["default"],
  models: [],
  account: {},
  hooks_applied: true,
  hook_on_failure_supported: true,
};

function textOf(message) {
  const content = message?.message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block?.type === "text" ? block.text : "")).join("");
}

export function runStreamMode(context) {
  const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const pending = new Map();
  const io = {
    send,
    hooks: undefined,
    request(request) {
      const requestId = randomUUID();
      send({ type: "control_request", request_id: requestId, request });
      return new Promise((resolve, reject) => pending.set(requestId, { resolve, reject }));
    },
  };
  const session = newSession(context.options);
  let turns = Promise.resolve();
  let lastWasError = false;

  const handleControlRequest = (message) => {
    const { request } = message;
    context.log({ event: "control_request", subtype: request?.subtype, request });
    if (request?.subtype === "initialize") io.hooks = request.hooks ?? {};
    const response =
      request?.subtype === "initialize" ? { ...INITIALIZE_RESPONSE, pid: process.pid } : {};
    send({
      type: "control_response",
      response: { subtype: "success", request_id: message.request_id, response },
    });
  };

  const handleLine = (line) => {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    if (message.type === "control_request") return handleControlRequest(message);
    if (message.type === "control_response") {
      const waiting = pending.get(message.response?.request_id);
      pending.delete(message.response?.request_id);
      if (message.response?.subtype === "error") waiting?.reject(new Error(message.response.error));
      else waiting?.resolve(message.response?.response);
      return;
    }
    if (message.type === "user") {
      const prompt = textOf(message);
      context.log({ event: "user", prompt });
      turns = turns.then(async () => {
        lastWasError = (await runTurn(context, io, session, prompt)).isError;
      });
    }
  };

  return new Promise((done) => {
    const lines = createInterface({ input: process.stdin });
    lines.on("line", handleLine);
    lines.on("close", () => {
      context.log({ event: "stdin-closed" });
      turns.then(() => done(lastWasError ? 1 : 0));
    });
  });
}
