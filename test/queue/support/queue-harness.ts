import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, vi } from "vitest";
import { QUEUE_NAME, type QueueJobData } from "../../../src/queue/index.js";
import {
  type FakeGithub,
  type FakeIssueSeed,
  startFakeGithub,
} from "../../doubles/fake-github/index.js";
import { TOKEN } from "../../run/support/issue-repo.js";
import type { TestRedis } from "../../support/redis-server.js";
import { makeQueueFixture, type QueueFixture, type WorkerProcess } from "./queue-fixture.js";

/** What a queue test file works with; set before its first test. */
export interface QueueHarness {
  fixture: QueueFixture;
  github: FakeGithub;
  queue: Queue<QueueJobData>;
  /** Worker processes a test started: killed after each test. */
  readonly workers: WorkerProcess[];
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
  const harness = { workers: [] as WorkerProcess[] } as unknown as QueueHarness;
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
