import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { CloserError, isCloserError } from "../errors.js";
import type { TaskInfo } from "../ports/run-state.js";
import { refuseLargeTask } from "./task-size.js";

const LARGE_TASK_FIX =
  "put the large part (logs, data) in a file of the project and name that file in the task; a task is at most 1 MiB";

/**
 * A written task from text: the title is the first Markdown heading (or,
 * without one, the first non-blank line); the body is the rest.
 */
export function parseTaskText(text: string): TaskInfo {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const headingIndex = lines.findIndex((line) => /^#{1,6}\s+\S/.test(line));
  const titleIndex =
    headingIndex !== -1 ? headingIndex : lines.findIndex((line) => line.trim() !== "");
  if (titleIndex === -1) return { kind: "text", title: "", body: "" };
  const titleLine = lines[titleIndex] ?? "";
  const title = titleLine
    .replace(/^#{1,6}\s+/, "")
    .replace(/\s+#+\s*$/, "")
    .trim();
  const rest = [...lines.slice(0, titleIndex), ...lines.slice(titleIndex + 1)];
  return { kind: "text", title, body: rest.join("\n").trim() };
}

/** Reads `--task-file`; a missing or empty file is a usage error naming it. */
export async function readTaskFile(file: string, cwd: string): Promise<TaskInfo> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    // Sized first, so a huge file is refused without being read.
    refuseLargeTask((await stat(path)).size, {
      what: "the task file",
      file: path,
      fix: LARGE_TASK_FIX,
    });
    text = await readFile(path, "utf8");
  } catch (error) {
    if (isCloserError(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new CloserError(
      "usage_error",
      code === "ENOENT" ? "the task file does not exist" : `the task file cannot be read (${code})`,
      {
        file: path,
        expected: "a Markdown or text file whose first heading (or line) is the task's title",
        fix: "check the path given to --task-file",
        cause: error,
      },
    );
  }
  const task = parseTaskText(text);
  if (task.title === "") {
    throw new CloserError("usage_error", "the task file is empty", {
      file: path,
      expected: "a title line, then the task's description",
      fix: "write the task into the file, e.g. `# Fix the login bug` and what to do",
    });
  }
  return task;
}

/** A task given as `--task TEXT`: its first line is the title; the body is the whole text. */
export function taskFromText(text: string): TaskInfo {
  refuseLargeTask(Buffer.byteLength(text), {
    what: "the task given with --task",
    fix: LARGE_TASK_FIX,
  });
  const task = parseTaskText(text);
  if (task.title !== "") return { ...task, body: text.trim() };
  throw new CloserError("usage_error", "--task is empty", {
    expected: "the task in words",
    fix: 'pass e.g. --task "make the tests pass"',
  });
}
