/** A tool call of the model in words, as the progress lines, `closer show` and the report say it (docs/observe.md#tool-calls). */

/** How a call's line names what it did: `write src/a.ts`, `run npm test`. */
const VERBS: Readonly<Record<string, string>> = {
  write: "write",
  edit: "edit",
  read: "read",
  command: "run",
  search: "search",
  fetch: "fetch",
};

/** `write src/a.ts`; a tool closer does not name goes by its own name: `TodoWrite`. */
export function toolCallText(call: {
  readonly tool: string;
  readonly action: string;
  readonly target: string;
}): string {
  const verb = VERBS[call.action] ?? call.tool;
  return call.target === "" ? verb : `${verb} ${call.target}`;
}

/** ` · exit 1`, ` ✗ failed`, or "" for a call that went well and reported no exit code. */
export function toolCallOutcome(call: { readonly exitCode?: number; readonly failed: boolean }): {
  readonly text: string;
  readonly bad: boolean;
} {
  if (call.exitCode !== undefined) {
    return { text: `exit ${call.exitCode}`, bad: call.exitCode !== 0 };
  }
  return call.failed ? { text: "✗ failed", bad: true } : { text: "", bad: false };
}
