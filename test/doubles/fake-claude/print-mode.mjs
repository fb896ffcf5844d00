/**
 * `claude -p`: one turn, the prompt from the arguments or stdin, no control
 * channel (so no hooks and no permission prompts). `--output-format json`
 * prints the result message alone, `stream-json` every message, `text` the
 * final text.
 */
import { newSession, runTurn } from "./turn.mjs";

async function readStdin() {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

export async function runPrintMode(context, positionals) {
  const prompt = positionals.length > 0 ? positionals.join(" ") : await readStdin();
  context.log({ event: "user", prompt });
  const format = context.options.outputFormat;
  let result;
  const io = {
    hooks: undefined,
    request: undefined,
    send(message) {
      if (message.type === "result") result = message;
      if (format === "stream-json") process.stdout.write(`${JSON.stringify(message)}\n`);
    },
  };
  const { isError } = await runTurn(context, io, newSession(context.options), prompt);
  if (format === "json") process.stdout.write(`${JSON.stringify(result)}\n`);
  if (format === "text")
    process.stdout.write(`${result?.result ?? result?.errors?.join("\n") ?? ""}\n`);
  return isError ? 1 : 0;
}
