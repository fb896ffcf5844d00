/**
 * Paths written in agent.json and steps_registry.json are relative to a folder
 * (the agent folder, its schemas/ folder, the working tree) and may not leave it.
 */
import path from "node:path";
import { z } from "zod";

/** Not absolute (`/x`, `C:x`), and no `..` step; the same rule for closer and for editors. */
const INSIDE_PATH_PATTERN = "^(?![\\\\/]|[A-Za-z]:)(?!(?:.*[\\\\/])?\\.\\.(?:[\\\\/]|$)).+$";

/** Whether a relative path stays inside the folder it is relative to. */
export function isInsidePath(text: string): boolean {
  return new RegExp(INSIDE_PATH_PATTERN, "u").test(text);
}

/** Whether `file` (absolute) is inside `folder` (absolute), not the folder itself. */
export function isInsideFolder(folder: string, file: string): boolean {
  const inner = path.relative(folder, file);
  return inner !== "" && !inner.startsWith("..") && !path.isAbsolute(inner);
}

/** A non-empty path relative to `folder` that may not leave it, e.g. `insidePath("the agent folder", "prompts/system.md")`. */
export function insidePath(folder: string, example: string) {
  return z
    .string()
    .min(1)
    .refine(isInsidePath, {
      error: (issue) => `${JSON.stringify(issue.input)} leaves ${folder}`,
      params: { fix: `use a relative path without "..", inside ${folder}, e.g. "${example}"` },
    })
    .meta({ pattern: INSIDE_PATH_PATTERN });
}
