/**
 * The queue as a read-only web page (docs/queue.md#queue-page): GET `/`, GET
 * `/jobs.json` and GET `/runs/<job>/report`, for a caller's node:http server.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Queue } from "bullmq";
import type { QueueJobData } from "./job-data.js";
import { jobReport } from "./job-report.js";
import { listJobs } from "./list-jobs.js";
import { queuePagePolicy } from "./queue-page-assets.js";
import { renderMessagePage, renderQueuePage } from "./queue-page-html.js";
import { pageRowsOf } from "./queue-page-rows.js";

const REPORT_ROUTE = /^\/runs\/([^/]+)\/report$/;

/**
 * Answers the page's routes and resolves true; resolves false for any other
 * request (another path, a method other than GET or HEAD), for the caller to answer.
 */
export function queuePageHandler(
  queue: Queue<QueueJobData>,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  return async (request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") return false;
    const path = new URL(request.url ?? "/", "http://queue.invalid").pathname;
    const reportOf = REPORT_ROUTE.exec(path)?.[1];
    if (path !== "/" && path !== "/jobs.json" && reportOf === undefined) return false;
    const send = (status: number, type: string, body: string, policy?: string) => {
      response.writeHead(status, {
        "content-type": type,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        ...(policy === undefined ? {} : { "content-security-policy": policy }),
      });
      response.end(request.method === "HEAD" ? undefined : body);
    };
    const sendMessage = (status: number, title: string, lines: readonly string[]) =>
      send(status, HTML, renderMessagePage(title, lines), queuePagePolicy());
    try {
      if (reportOf !== undefined) {
        const answer = await jobReport(queue, decodedJobId(reportOf));
        if (answer.found) send(200, HTML, answer.page);
        else sendMessage(404, answer.title, answer.lines);
        return true;
      }
      const rows = pageRowsOf(await listJobs(queue));
      if (path === "/jobs.json") send(200, "application/json", `${JSON.stringify(rows)}\n`);
      else send(200, HTML, renderQueuePage(rows, new Date()), queuePagePolicy());
    } catch (error) {
      sendMessage(503, "The queue cannot be read", [
        `Reading the queue failed: ${(error as Error).message}.`,
        "Check that the Redis server of the queue is up (`closer queue` says the same), then reload.",
      ]);
    }
    return true;
  };
}

const HTML = "text/html; charset=utf-8";

/** The job id of a report route; a malformed escape stays as it is (and names no job). */
function decodedJobId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
