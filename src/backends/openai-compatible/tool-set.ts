/**
 * The tools the model is given, in the AI SDK's shape
 * (docs/backends.md#openai-compatible). Imported only when this backend is
 * made, with the SDK itself.
 */
import { type ToolSet, tool } from "ai";
import { z } from "zod";
import { editTool, readTool, writeTool } from "./file-tools.js";
import { bashTool, grepTool, listTool, type ShellContext } from "./shell-tools.js";

/**
 * Hears a tool call as it starts, with the tool's name, its input and the call's id;
 * what it returns hears the tool's answer when the call ends.
 */
export type ToolUseListener = (
  name: string,
  input: unknown,
  callId: string,
) => (answer: string) => void;

/**
 * The six tools, each working in `context.root`, one call at a time; `onUse`
 * hears each call as it runs, and its answer.
 */
export function makeToolSet(context: ShellContext, onUse: ToolUseListener): ToolSet {
  // Calls of one model message run one after another, in the order given: an
  // `edit` and the `bash` that tests it must not race.
  let queue: Promise<unknown> = Promise.resolve();
  const used =
    <INPUT>(name: string, run: (input: INPUT) => Promise<string>) =>
    (input: INPUT, { toolCallId }: { toolCallId: string }) => {
      const result = queue.then(async () => {
        const answered = onUse(name, input, toolCallId);
        try {
          const answer = await run(input);
          answered(answer);
          return answer;
        } catch (error) {
          answered(`error: ${error instanceof Error ? error.message : String(error)}`);
          throw error;
        }
      });
      queue = result.catch(() => {});
      return result;
    };
  return {
    read: tool({
      description: "Read a text file of the working tree; lines come numbered.",
      inputSchema: z.object({
        path: z.string().describe("path relative to the working tree"),
        offset: z.number().int().min(1).optional().describe("first line, 1-based"),
        limit: z.number().int().min(1).optional().describe("how many lines"),
      }),
      execute: used("read", (input) => readTool(context, input)),
    }),
    write: tool({
      description: "Write a whole file of the working tree (created with its folders if missing).",
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: used("write", (input) => writeTool(context, input)),
    }),
    edit: tool({
      description:
        "Replace one exact occurrence of old_string with new_string in a file; old_string must occur exactly once.",
      inputSchema: z.object({ path: z.string(), old_string: z.string(), new_string: z.string() }),
      execute: used("edit", (input) => editTool(context, input)),
    }),
    list: tool({
      description: "List the files of the working tree matching a glob (default all).",
      inputSchema: z.object({
        pattern: z.string().optional().describe('a glob, e.g. "src/**/*.ts"'),
      }),
      execute: used("list", (input) => listTool(context, input)),
    }),
    grep: tool({
      description: "Search the working tree's files for lines matching a regular expression.",
      inputSchema: z.object({
        pattern: z.string().describe("a JavaScript regular expression"),
        glob: z.string().optional().describe("only files matching this glob"),
      }),
      execute: used("grep", (input) => grepTool(context, input)),
    }),
    bash: tool({
      description:
        "Run a shell command in the working tree (e.g. the tests); answers its exit code and output.",
      inputSchema: z.object({ command: z.string() }),
      execute: used("bash", (input) => bashTool(context, input)),
    }),
  };
}
