/** What the fake CLIs share: usage defaults, the final text of a turn, output helpers. */
export const DEFAULT_USAGE = {
  inputTokens: 120,
  outputTokens: 45,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
};

export function finalText(turn) {
  if (turn.text !== undefined) return turn.text;
  if (turn.structuredOutput !== undefined) return JSON.stringify(turn.structuredOutput);
  return "done";
}

export function crash(cli) {
  process.stderr.write(`${cli}: fatal: unexpected internal error\n    at main (${cli}.js:1:1)\n`);
  return 2;
}

export function printJson(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
