import type { Issue } from "../github/index.js";
import type { TaskInfo } from "../record/run-state.js";

/** The task and the template variables of an issue run. */
export interface IssueTask {
  readonly task: TaskInfo;
  /** Agent parameters of the run: the CLI's, plus `issue`, `issueLabels` and `issueComments`. */
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * The one place an issue becomes template variables: `task` (title, body,
 * url, issueNumber), `issue` (the number), `issueLabels` (names) and
 * `issueComments` (`{author, body}` in order).
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
    },
    args: {
      ...args,
      issue: issue.number,
      issueLabels: [...issue.labels],
      issueComments: issue.comments.map((comment) => ({
        author: comment.author,
        body: comment.body,
      })),
    },
  };
}
