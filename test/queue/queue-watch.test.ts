import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { QUEUE_NAME, type QueueJobData } from "../../src/queue/index.js";
import { cli } from "../cli/support/cli-repo.js";
import { startTestRedis } from "../support/redis-server.js";
import { waitFor } from "./support/queue-fixture.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

describe("docs/queue.md#queue-watch --watch's options", () => {
  it.each([
    [["--interval", "2"], "--interval is the period of --watch"],
    [["--watch", "--json"], "--watch draws a table: it does not take --json"],
    [["--watch", "--interval", "never"], "--interval must be a number of seconds"],
  ])("closer queue %j: exit 2 before any Redis is asked", async (flags, message) => {
    const result = await cli("queue", ...flags, "--redis", "redis://127.0.0.1:1");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

const started = await startTestRedis();
if (started.missing !== undefined) {
  process.stderr.write(`queue watch tests skipped: ${started.missing} (install redis-server)\n`);
}
const redis = started.redis;

const job = (issue: number): QueueJobData => ({
  version: 1,
  repository: { cloneUrl: "/nowhere", owner: "acme", name: "widgets" },
  agent: "good",
  work: { kind: "issue", issue },
  flags: {},
});

describe.skipIf(redis === undefined)(
  `docs/queue.md#queue-watch closer queue --watch as a process without a terminal${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    const queue = new Queue<QueueJobData>(QUEUE_NAME, {
      connection: { host: "127.0.0.1", port: redis?.port ?? 0, maxRetriesPerRequest: null },
    });
    afterAll(async () => {
      await queue.close();
      await redis?.stop();
    });

    it("prints the table, prints it again only when a job is added, and exits 0 on SIGINT", async () => {
      await queue.add("run", job(1));
      const child = spawn(
        process.execPath,
        [
          ...["--import", TSX_LOADER, MAIN],
          ...["queue", "--watch", "--interval", "0.2", "--redis", redis?.url ?? ""],
        ],
        { env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const exited = new Promise<number | string>((resolve) =>
        child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
      );
      const frames = () => stdout.split(/^closer queue at /m).slice(1);

      await waitFor("the first table", async () => frames().length === 1, 30_000);
      expect(frames()[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z\njob\s+state\s+work/);
      expect(frames()[0]).toMatch(/^1\s+waiting\s+acme\/widgets#1\s+good/m);
      expect(frames()[0]).toContain("0 running, 1 waiting, 0 done, 0 failed, total cost $0.00");
      // Ticks of an unchanged queue print nothing.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(frames()).toHaveLength(1);

      await queue.add("run", job(2));
      await waitFor("the table again", async () => frames().length === 2, 30_000);
      expect(frames()[1]).toMatch(/^2\s+waiting\s+acme\/widgets#2/m);
      expect(frames()[1]).toContain("0 running, 2 waiting");

      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(stderr).toBe("");
    }, 90_000);
  },
);
