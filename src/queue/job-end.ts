import { dirname } from "node:path";
import { hasEnded } from "../run/index.js";

/**
 * What a job becomes once its run ended (docs/queue.md#job-ends): `complete` only for a verified
 * run (or an issue found closed: nothing to do); `fail` for every other end the run reached
 * itself, which no attempt can cure; `retry` for a run interrupted by an error, which a later
 * attempt resumes from its record.
 */
export type JobEnd =
  | { readonly kind: "complete" }
  | { readonly kind: "fail" | "retry"; readonly reason: string };

/** The job's end from its result (docs/cli.md#json-output fields), run on worker `worker`. */
export function jobEndOf(result: Readonly<Record<string, unknown>>, worker: string): JobEnd {
  const status = String(result.status);
  if ((status === "completed" && result.success === true) || status === "skipped") {
    return { kind: "complete" };
  }
  return { kind: hasEnded(status) ? "fail" : "retry", reason: failedReasonOf(result, worker) };
}

/**
 * The failed job's reason: the run's status and reason, the check that failed last, and where
 * its record is: `run R ended retries_exhausted: <reason> — lint failed (…) — record: <run dir>
 * on <worker>; report: closer report R --runs-dir <runs dir>`.
 */
function failedReasonOf(result: Readonly<Record<string, unknown>>, worker: string): string {
  const runId = String(result.runId ?? "");
  const reason = String(result.reason ?? "").split("\n")[0] ?? "";
  const runDir = typeof result.runDir === "string" ? result.runDir : "";
  const failedCheck = typeof result.failedCheck === "string" ? ` — ${result.failedCheck}` : "";
  const record =
    runDir === ""
      ? ""
      : ` — record: ${runDir} on ${worker}; report: closer report ${runId} --runs-dir ${dirname(runDir)}`;
  return `run ${runId} ended ${String(result.status)}: ${reason}${failedCheck}${record}`;
}
