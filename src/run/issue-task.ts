import type { Issue } from "../ports.js";
import type { TaskInfo } from "../record/run-state.js";

/** The task and the template variables of an issue run. */
export interface IssueTask {
  readonly task: TaskInfo;
  /** Agent parameters of the run: the CLI's, plus `issue` (the number). */
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * The one place an issue becomes template variables: `task` (title, body,
 * url, issueNumber, labels, and comments as `{author, body}` in order) and
 * `issue` (the number).
 */
export function makeIssueTask(
  issue: Issue,
  args: Readonly<Record<string, unknown>> = {},
): IssueTask {
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
