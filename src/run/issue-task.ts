import type { Issue } from "../ports/github.js";
import type { TaskInfo } from "../ports/run-state.js";
import { refuseLargeTask } from "./task-size.js";

/** The task and the template variables of an issue run. */
export interface IssueTask {
  readonly task: TaskInfo;
  /** Agent parameters of the run: the CLI's, plus `issue` (the number). */
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * The one place an issue becomes template variables: `task` (title, body,
 * url, issueNumber, labels, and comments as `{author, body}` in order) and
 * `issue` (the number). An issue of more than 1 MiB is refused
 * (docs/record.md#task-limit).
 */
export function makeIssueTask(
  issue: Issue,
  args: Readonly<Record<string, unknown>> = {},
): IssueTask {
  refuseLargeTask(
    Buffer.byteLength(issue.title) +
      Buffer.byteLength(issue.body) +
      issue.comments.reduce((bytes, comment) => bytes + Buffer.byteLength(comment.body), 0),
    {
      what: `issue #${issue.number} (its title, body and comments)`,
      fix: "shorten the issue or its comments, or write the task with --task-file; a task is at most 1 MiB",
    },
  );
  return {
    task: {
      kind: "issue",
      title: issue.title,
      body: issue.body,
      url: issue.url,
      issueNumber: issue.number,
      labels: [...issue.labels],
      comments: issue.comments.map((comment) => ({ author: comment.author, body: comment.body })),
    },
    args: {
      ...args,
      issue: issue.number,
    },
  };
}
