import { resolve } from "node:path";
import { isInsideFolder } from "../definition/inside-path.js";

/** Claude Code's tools that write a file named by `file_path` or `notebook_path`. */
const WRITING_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

/**
 * Why a tool use must be denied because it writes a protected path
 * (docs/integrity.md#protected-paths), or undefined. Protected paths are
 * files or folders (everything inside a folder is protected).
 */
export function protectedPathDenial(
  toolName: string,
  input: unknown,
  cwd: string,
  protectedPaths: readonly string[],
): string | undefined {
  if (!WRITING_TOOLS.has(toolName) || typeof input !== "object" || input === null) return undefined;
  const fields = input as Record<string, unknown>;
  const target = fields.file_path ?? fields.notebook_path;
  if (typeof target !== "string") return undefined;
  const file = resolve(cwd, target);
  const hit = protectedPaths.find((path) => file === path || isInsideFolder(path, file));
  if (hit === undefined) return undefined;
  return (
    `${target} is protected: it defines how closer checks the work, and it must stay as it was ` +
    "when the run started. Change the code under test instead."
  );
}

/** Claude Code permission rules denying writes to the protected paths (`//` marks an absolute path). */
export function protectedPathRules(protectedPaths: readonly string[]): string[] {
  return protectedPaths.map((path) => `Edit(/${path})`);
}
