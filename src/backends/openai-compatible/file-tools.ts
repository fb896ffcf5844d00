/**
 * The file tools of the openai-compatible backend's own tool loop
 * (docs/backends.md#openai-compatible). Each returns the text the model sees;
 * a refusal or a failure is such a text too, never a throw.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { protectedWriteRefusal, resolveInsideTree } from "./working-tree-path.js";

/** Where the tools work: the working tree and the paths they may not write. */
export interface ToolContext {
  root: string;
  protectedPaths: readonly string[];
}

/** The most characters one tool result gives back to the model. */
export const TOOL_OUTPUT_CAP = 30_000;

/** `text` cut to the cap, saying how much was left out. */
export function capOutput(text: string, cap = TOOL_OUTPUT_CAP): string {
  if (text.length <= cap) return text;
  return `${text.slice(0, cap)}\n… (${text.length - cap} more characters left out)`;
}

function errorText(error: unknown): string {
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}

/** Lines `offset` (1-based) to `offset + limit - 1` of a file inside the tree, numbered. */
export async function readTool(
  context: ToolContext,
  input: { path: string; offset?: number; limit?: number },
): Promise<string> {
  const target = await resolveInsideTree(context.root, input.path);
  if (!target.ok) return `error: ${target.reason}`;
  try {
    const lines = (await readFile(target.file, "utf8")).split("\n");
    const first = Math.max(1, input.offset ?? 1);
    const chosen = lines.slice(
      first - 1,
      input.limit === undefined ? undefined : first - 1 + input.limit,
    );
    return capOutput(chosen.map((line, index) => `${first + index}\t${line}`).join("\n"));
  } catch (error) {
    return errorText(error);
  }
}

/** The file a write tool may change: inside the tree and off the protected paths. */
async function writableFile(
  context: ToolContext,
  relativePath: string,
): Promise<{ ok: true; file: string } | { ok: false; reason: string }> {
  const target = await resolveInsideTree(context.root, relativePath);
  if (!target.ok) return target;
  const refusal = protectedWriteRefusal(target.file, relativePath, context.protectedPaths);
  return refusal === undefined ? target : { ok: false, reason: refusal };
}

/** Writes a whole file inside the tree (its folders made), unless it is protected. */
export async function writeTool(
  context: ToolContext,
  input: { path: string; content: string },
): Promise<string> {
  const target = await writableFile(context, input.path);
  if (!target.ok) return `error: ${target.reason}`;
  try {
    await mkdir(path.dirname(target.file), { recursive: true });
    await writeFile(target.file, input.content);
    return `wrote ${input.path} (${input.content.length} characters)`;
  } catch (error) {
    return errorText(error);
  }
}

/** Replaces the one exact occurrence of `old_string` in a file inside the tree. */
export async function editTool(
  context: ToolContext,
  input: { path: string; old_string: string; new_string: string },
): Promise<string> {
  const target = await writableFile(context, input.path);
  if (!target.ok) return `error: ${target.reason}`;
  try {
    const text = await readFile(target.file, "utf8");
    const count = input.old_string === "" ? 0 : text.split(input.old_string).length - 1;
    if (count !== 1) {
      return `error: old_string occurs ${count} times in ${input.path}; it must occur exactly once (add surrounding lines to make it unique)`;
    }
    await writeFile(
      target.file,
      text.replace(input.old_string, () => input.new_string),
    );
    return `edited ${input.path}`;
  } catch (error) {
    return errorText(error);
  }
}
