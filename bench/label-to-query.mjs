/**
 * From a label to the first query (docs/performance.md#queue): a signed
 * `issues labeled` delivery to `closer serve`, the job it queues taken by a
 * `closer worker` already waiting, and the run's first query — whose model is
 * a shell line that notes the time it started. GitHub is a small stand-in on
 * loopback that answers what a run asks before its first query.
 */
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closerBin, median } from "./support.mjs";

const ROUNDS = 3;
const SECRET = "bench-webhook-secret";
const LABEL = "ready";
/** Where the model's shell line writes the epoch ms its query started at. */
const MARK = join(tmpdir(), `closer-bench-first-query-${process.pid}`);

/** The agent the labelled issues run: a query that writes the time, then commits. */
export const LABELLED_AGENT = {
  name: "labelled",
  agent: {
    name: "labelled",
    runner: {
      backend: {
        kind: "command",
        command: [
          "bash",
          "-c",
          `date +%s%3N > ${MARK} && echo x >> work.txt && git add -A && git commit -qm work && echo COMPLETE`,
        ],
      },
      maxIterations: 1,
      worktree: { onSuccess: "keep" },
    },
  },
  registry: {
    entryStep: "initial.issue",
    completionPatterns: { failed: {} },
    validators: { ok: { type: "command", command: "true", failurePattern: "failed" } },
    steps: { "initial.issue": { c2: "initial", c3: "issue", completionStep: "done.issue" } },
    completionSteps: {
      "done.issue": {
        c2: "retry",
        c3: "issue",
        completionConditions: [{ validator: "ok" }],
        onFailure: { action: "retry", maxAttempts: 1 },
      },
    },
  },
  prompts: {
    "steps/initial/issue/f_default.md": "Fix the issue.\n",
    "steps/retry/issue/f_failed_failed.md": "Again.\n",
  },
};

/**
 * The median ms from the delivery's send to the first query's start, over ROUNDS issues.
 * @param {{ url: string }} redis
 * @param {string} repoDir the repository holding LABELLED_AGENT, which the worker clones
 * @param {string} scratch a folder of the bench's own
 */
export async function timeLabelToFirstQuery(redis, repoDir, scratch) {
  const github = await startGitHub();
  const env = {
    ...process.env,
    NO_COLOR: "1",
    GITHUB_TOKEN: "bench-token",
    GITHUB_API_URL: github.url,
    CLOSER_WEBHOOK_SECRET: SECRET,
  };
  const common = ["--redis", redis.url];
  const serve = await startUntil(
    [
      "serve",
      ...common,
      "--agent",
      "labelled",
      "--label",
      LABEL,
      "--port",
      "0",
      "--repo",
      "bench/trivial",
      "--clone-url",
      repoDir,
      "--cwd",
      repoDir,
      "--sandbox",
      "off",
    ],
    env,
    /listening on (\S+)/,
  );
  const worker = await startUntil(
    ["worker", ...common, "--repo-dir", join(scratch, "labelled-worker")],
    env,
    /waiting for jobs/,
  );
  try {
    const times = [];
    for (let issue = 1; issue <= ROUNDS; issue += 1) {
      rmSync(MARK, { force: true });
      const sentMs = Date.now();
      await deliverLabel(`${serve.match[1]}/webhook`, issue);
      times.push((await waitForMark()) - sentMs);
    }
    return median(times);
  } finally {
    await Promise.all([stop(worker.child), stop(serve.child)]);
    await new Promise((resolve) => github.server.close(resolve));
    rmSync(MARK, { force: true });
  }
}

/** GitHub's `issues labeled` delivery for issue `number`, signed as GitHub signs it. */
async function deliverLabel(url, number) {
  const body = JSON.stringify({
    action: "labeled",
    label: { name: LABEL },
    issue: { number, state: "open", title: `issue ${number}`, labels: [{ name: LABEL }] },
    repository: { full_name: "bench/trivial", name: "trivial", owner: { login: "bench" } },
  });
  const signature = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
  const response = await fetch(url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": `bench-${number}-${Date.now()}`,
      "x-hub-signature-256": signature,
    },
  });
  if (response.status !== 202) {
    throw new Error(`closer serve answered ${response.status}: ${await response.text()}`);
  }
}

/** The epoch ms the first query noted, once it has. */
async function waitForMark() {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const noted = Number(readFileSync(MARK, "utf8").trim());
      if (Number.isFinite(noted) && noted > 0) return noted;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the labelled issue's first query did not start within 60 s");
}

/** A closer process, once its stderr matched `ready`. */
async function startUntil(args, env, ready) {
  const child = spawn(process.execPath, [closerBin(), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env,
  });
  const match = await new Promise((resolve, reject) => {
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
      const found = ready.exec(text);
      if (found !== null) resolve(found);
    });
    child.once("exit", (code) => reject(new Error(`closer ${args[0]} exited ${code}: ${text}`)));
  });
  return { child, match };
}

async function stop(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/**
 * What a run asks GitHub before its first query: the issue (open, labelled), and its comments,
 * labels and timeline, all empty; every change is accepted.
 */
async function startGitHub() {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const issue = /^\/repos\/bench\/trivial\/issues\/(\d+)$/.exec(url.pathname);
    const send = (status, value) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    request.resume();
    request.on("end", () => {
      if (request.method === "GET" && issue !== null) {
        const number = Number(issue[1]);
        return send(200, {
          number,
          title: `issue ${number}`,
          body: "Fix it.",
          state: "open",
          labels: [{ name: LABEL }],
          html_url: `https://github.com/bench/trivial/issues/${number}`,
          user: { login: "bench" },
        });
      }
      if (request.method === "GET") return send(200, []);
      return send(201, { id: 1, html_url: "https://github.com/bench/trivial/pull/1", number: 1 });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}
