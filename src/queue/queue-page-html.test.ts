import { describe, expect, it } from "vitest";
import { formatJobTable, type JobRow } from "./list-jobs.js";
import { renderQueuePage } from "./queue-page-html.js";
import { reportWhere } from "./queue-page-rows.js";

const MARKUP = `<script>window.__pwned = 1</script> "quoted" & 'single'`;

const rows: JobRow[] = [
  {
    id: "7",
    state: "waiting",
    work: `acme/widgets task ${JSON.stringify(MARKUP)}`,
    agent: "<b>fixer</b>",
    attemptsMade: 0,
  },
  {
    id: "8",
    state: "failed",
    work: "acme/widgets#3",
    agent: "fixer",
    attemptsMade: 1,
    failedReason: "<img src=x onerror=alert(1)>",
    costUsd: 0.25,
  },
];

describe("docs/queue.md#queue-page the page escapes every value", () => {
  it("a task title with <script> is text, not markup", () => {
    const page = renderQueuePage(rows, new Date(0));
    expect(page).not.toContain("<script>window.__pwned");
    expect(page).toContain("&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
    expect(page).toContain("&lt;b&gt;fixer&lt;/b&gt;");
    expect(page).toContain("job 8 failed: &lt;img src=x onerror=alert(1)&gt;");
    expect(page).not.toContain("<img");
    // The page's own script is its only one.
    expect(page.match(/<script>/g)).toHaveLength(1);
  });

  it("shows the totals the terminal shows", () => {
    const page = renderQueuePage(rows, new Date(0));
    expect(page).toContain("0 running, 1 waiting, 0 done, 1 failed, total cost $0.25");
    expect(formatJobTable(rows).split("\n").at(-1)).toBe(
      "0 running, 1 waiting, 0 done, 1 failed, total cost $0.25",
    );
  });

  it("says where a report is that this machine cannot read: the worker's host, not its pid", () => {
    expect(reportWhere({ worker: "build-2:4711", reportPath: "/srv/runs/r1/report.html" })).toBe(
      "on build-2 at /srv/runs/r1/report.html",
    );
  });
});
