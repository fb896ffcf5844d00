import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSince } from "../../src/observe/list-runs.js";
import { cli } from "./support/cli-repo.js";

const STATUSES = ["completed", "max_iterations", "error", "retries_exhausted"] as const;
const RUNS = 1_000;
const START_MS = Date.parse("2030-01-01T00:00:00.000Z");

/** The id of run `n`: one minute after run n-1. */
function runIdOf(n: number): string {
  const at = new Date(START_MS + n * 60_000).toISOString();
  const stamp = `${at.slice(0, 4)}${at.slice(5, 7)}${at.slice(8, 10)}-${at.slice(11, 13)}${at.slice(14, 16)}${at.slice(17, 19)}`;
  return `${stamp}-${String(n).padStart(6, "0")}`;
}

let runsDir: string;

beforeAll(async () => {
  runsDir = await mkdtemp(join(tmpdir(), "closer-runs-"));
  for (let n = 0; n < RUNS; n++) {
    const runId = runIdOf(n);
    await mkdir(join(runsDir, runId));
    const startedAt = new Date(START_MS + n * 60_000).toISOString();
    await writeFile(
      join(runsDir, runId, "run.json"),
      JSON.stringify({
        version: 2,
        runId,
        agent: n % 2 === 0 ? "alpha" : "beta",
        task: {
          kind: "text",
          title: `task number ${n} with a title long enough to be shortened`,
          body: "",
        },
        status: STATUSES[n % STATUSES.length],
        reason: "",
        iteration: (n % 5) + 1,
        totals: { costUsd: n / 100, usage: {}, backendMs: 0 },
        startedAt,
        updatedAt: new Date(START_MS + n * 60_000 + 90_000).toISOString(),
      }),
    );
  }
  const damaged = "20300201-000000-broken";
  await mkdir(join(runsDir, damaged));
  await writeFile(join(runsDir, damaged, "run.json"), '{"runId": "20300201-000000-bro');
});

afterAll(async () => {
  await rm(runsDir, { recursive: true, force: true });
});

interface Listed {
  runId: string;
  agent: string;
  task: string;
  status: string;
  iterations: number;
  costUsd: number;
  durationMs: number;
  startedAt: string;
}

async function listed(...args: string[]): Promise<Listed[]> {
  const result = await cli("runs", "--runs-dir", runsDir, "--json", ...args);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Listed[];
}

describe("closer runs (docs/observe.md#runs)", () => {
  it("lists the newest 20 of 1,000 runs first, a damaged run.json as damaged", async () => {
    const runs = await listed();
    expect(runs).toHaveLength(20);
    expect(runs[0]).toMatchObject({ runId: "20300201-000000-broken", status: "damaged" });
    expect(runs.slice(1).map((run) => run.runId)).toEqual(
      Array.from({ length: 19 }, (_, index) => runIdOf(RUNS - 1 - index)),
    );
    expect(runs[1]).toMatchObject({
      agent: "beta",
      status: "retries_exhausted",
      iterations: 5,
      costUsd: 9.99,
      durationMs: 90_000,
      startedAt: new Date(START_MS + 999 * 60_000).toISOString(),
    });
  });

  it("--limit 0 lists them all; --limit N that many", async () => {
    expect(await listed("--limit", "0")).toHaveLength(RUNS + 1);
    expect(await listed("--limit", "3")).toHaveLength(3);
    const refused = await cli("runs", "--runs-dir", runsDir, "--limit", "-1");
    expect(refused.code).toBe(2);
  });

  it("filters by status, agent and start time", async () => {
    const errors = await listed("--status", "error", "--limit", "0");
    expect(errors).toHaveLength(RUNS / 4);
    expect(errors.every((run) => run.status === "error")).toBe(true);
    const two = await listed("--status", "error,damaged", "--limit", "0");
    expect(two).toHaveLength(RUNS / 4 + 1);
    const alpha = await listed("--agent", "alpha", "--limit", "0");
    expect(alpha).toHaveLength(RUNS / 2);
    expect(alpha.every((run) => run.agent === "alpha")).toBe(true);
    const since = await listed("--since", new Date(START_MS + 990 * 60_000).toISOString());
    expect(since.map((run) => run.runId)).toEqual([
      "20300201-000000-broken",
      ...Array.from({ length: 10 }, (_, index) => runIdOf(999 - index)),
    ]);
    const combined = await listed("--agent", "beta", "--status", "max_iterations", "--limit", "2");
    expect(combined.map((run) => run.runId)).toEqual([runIdOf(997), runIdOf(993)]);
  });

  it("prints a table with the task shortened", async () => {
    const result = await cli("runs", "--runs-dir", runsDir, "--limit", "2");
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^RUN\s+AGENT\s+TASK\s+STATUS\s+ITER\s+COST\s+DURATION\s+STARTED$/);
    expect(lines[1]).toContain("damaged");
    expect(lines[2]).toContain(runIdOf(999));
    expect(lines[2]).toContain("task number 999 with a title long enoug…");
    expect(lines[2]).toContain("$9.99");
    expect(lines[2]).toContain("1m 30s");
    expect(lines).toHaveLength(3);
  });

  it("says so when no run matches, and refuses a --since it cannot read", async () => {
    const none = await cli("runs", "--runs-dir", runsDir, "--agent", "gamma");
    expect(none.stdout).toContain(`No runs in ${runsDir}`);
    const bad = await cli("runs", "--runs-dir", runsDir, "--since", "yesterday-ish");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since");
  });
});

describe("parseSince", () => {
  const now = Date.parse("2030-06-01T12:00:00.000Z");
  it("reads spans back from now and ISO dates", () => {
    expect(parseSince("30m", now)).toBe(now - 30 * 60_000);
    expect(parseSince("12h", now)).toBe(now - 12 * 3_600_000);
    expect(parseSince("7d", now)).toBe(now - 7 * 86_400_000);
    expect(parseSince("2030-05-01", now)).toBe(Date.parse("2030-05-01"));
    expect(() => parseSince("soon", now)).toThrow(/neither a date nor a span/);
  });
});
