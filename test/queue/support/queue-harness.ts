import { type Job, Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, vi } from "vitest";
import { QUEUE_NAME, type QueueJobData } from "../../../src/queue/index.js";
import {
  type FakeGithub,
  type FakeIssueSeed,
  startFakeGithub,
} from "../../doubles/fake-github/index.js";
import { TOKEN } from "../../run/support/issue-repo.js";
import type { TestRedis } from "../../support/redis-server.js";
import {
  makeQueueFixture,
  type QueueFixture,
  startWorker,
  type WorkerProcess,
  waitFor,
} from "./queue-fixture.js";

/** What a queue test file works with; set before its first test. */
export interface QueueHarness {
  fixture: QueueFixture;
  github: FakeGithub;
  queue: Queue<QueueJobData>;
  /** Worker processes a test started: killed after each test. */
  readonly workers: WorkerProcess[];
  /**
   * Starts a `closer worker` in `repoDir` (default: a fresh folder), kept in `workers`. BullMQ's
   * default lock (30 s) where no worker dies; a short `stalledIntervalMs` where one does, so the
   * stalled-job check hands its job over soon (docs/queue.md#stalled-jobs).
   */
  worker(options?: { repoDir?: string; stalledIntervalMs?: number }): Promise<WorkerProcess>;
  /**
   * The flags of a job's template (docs/queue.md#job-data): this Redis, the origin as the
   * project, acme/widgets, `cloneUrl` (default: the origin) as what workers clone, no sandbox.
   */
  jobFlags(cloneUrl?: string): string[];
  /** Waits until job `id` is in `state`; the state is read first, as a job read before it ended has no value. */
  jobIn(state: "completed" | "failed", id: string, timeoutMs?: number): Promise<Job<QueueJobData>>;
}

/** `count` open issues numbered from 1, each asking for the work file, with `labels`. */
export function workIssues(count: number, labels: readonly string[] = ["ready"]): FakeIssueSeed[] {
  return Array.from({ length: count }, (_, index) => ({
    number: index + 1,
    title: `Write the work file ${index + 1}`,
    labels: [...labels],
  }));
}

/**
 * The origin repository, the fake GitHub with `issues`, and a queue client on `redis`, for the
 * tests of one `describe`: workers are killed and the queue emptied after each test, and all of
 * it stopped after the last.
 */
export function useQueueHarness(
  redis: TestRedis | undefined,
  issues: readonly FakeIssueSeed[],
): QueueHarness {
  const redisUrl = redis?.url ?? "";
  const harness = { workers: [] as WorkerProcess[] } as unknown as QueueHarness;
  harness.worker = async ({ repoDir, stalledIntervalMs = 30_000 } = {}) => {
    const started = startWorker({
      redisUrl,
      repoDir: repoDir ?? (await harness.fixture.repoDir()),
      github: harness.github,
      home: harness.fixture.home,
      stalledIntervalMs,
    });
    harness.workers.push(started);
    return started;
  };
  harness.jobFlags = (cloneUrl = harness.fixture.origin.dir) => [
    ...["--redis", redisUrl, "--cwd", harness.fixture.origin.dir, "--repo", "acme/widgets"],
    ...["--clone-url", cloneUrl, "--sandbox", "off"],
  ];
  harness.jobIn = (state, id, timeoutMs) =>
    waitFor(
      `job ${id} to be ${state}`,
      async () =>
        (await harness.queue.getJobState(id)) === state
          ? await harness.queue.getJob(id)
          : undefined,
      timeoutMs,
    );
  beforeAll(async () => {
    harness.fixture = await makeQueueFixture();
    harness.github = await startFakeGithub({ token: TOKEN, issues: [...issues] });
    harness.queue = new Queue<QueueJobData>(QUEUE_NAME, {
      connection: { host: "127.0.0.1", port: redis?.port ?? 0, maxRetriesPerRequest: null },
    });
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    for (const worker of harness.workers.splice(0)) {
      worker.child.kill("SIGKILL");
      await worker.exited;
    }
    await harness.queue.obliterate({ force: true });
  });
  afterAll(async () => {
    await harness.queue?.close();
    await harness.github?.close();
    await harness.fixture?.cleanup();
    await redis?.stop();
  });
  return harness;
}
