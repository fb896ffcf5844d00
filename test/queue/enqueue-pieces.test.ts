import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { startTestRedis } from "../support/redis-server.js";
import { useQueueHarness } from "./support/queue-harness.js";

const started = await startTestRedis();
if (started.missing !== undefined) {
  process.stderr.write(`enqueue tests skipped: ${started.missing} (install redis-server)\n`);
}
const redis = started.redis;

describe.skipIf(redis === undefined)(
  `docs/queue.md#enqueue every missing piece of a job named at once, on a real redis-server${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    // The fixture's origin repository has no "origin" remote of its own.
    const harness = useQueueHarness(redis, []);
    const url = () => redis?.url ?? "";
    const taskFile = async () => {
      const file = `${await harness.fixture.repoDir()}.md`;
      await writeFile(file, "# Tidy the widgets\n\nEvery widget in its place.\n");
      return file;
    };

    it("a --backend or --sandbox no worker could run is refused here, and nothing is queued", async () => {
      const file = await taskFile();
      const cwd = harness.fixture.origin.dir;
      const common = [
        ...["enqueue", "good", "--task-file", file, "--redis", url(), "--cwd", cwd],
        ...["--clone-url", "https://github.com/acme/widgets.git"],
      ];
      const backend = await cli(...common, "--backend", "claud-sdk");
      expect(backend.code).toBe(2);
      expect(backend.stderr).toContain("--backend");
      expect(backend.stderr).toContain("claud-sdk");
      const sandbox = await cli(...common, "--sandbox", "sometimes");
      expect(sandbox.code).toBe(2);
      expect(sandbox.stderr).toContain("--sandbox");
      expect(await harness.queue.count()).toBe(0);
    });

    it("a repository without origin: one error naming --clone-url and --repo; then --clone-url alone supplies both", async () => {
      const file = await taskFile();
      const cwd = harness.fixture.origin.dir;
      const lacking = await cli(
        "enqueue",
        "good",
        "--task-file",
        file,
        "--redis",
        url(),
        "--cwd",
        cwd,
      );
      expect(lacking.code).toBe(2);
      expect(lacking.stderr).toContain(
        `cannot queue: a job needs what workers clone and the GitHub repository (owner/name): ${cwd} has no "origin" remote`,
      );
      expect(lacking.stderr).toContain("fix: pass --clone-url URL");
      expect(lacking.stderr).toContain("gives owner/name too");
      expect(lacking.stderr).toContain("needs --repo owner/name beside it");
      expect(await harness.queue.count()).toBe(0);

      const cloneUrl = "https://github.com/acme/widgets.git";
      const queued = await cli(
        ...["enqueue", "good", "--task-file", file, "--redis", url(), "--cwd", cwd],
        ...["--clone-url", cloneUrl, "--json"],
      );
      expect(queued.code, queued.stderr).toBe(0);
      const [{ jobId = "" } = {}] = JSON.parse(queued.stdout) as { jobId?: string }[];
      expect((await harness.queue.getJob(jobId))?.data.repository).toEqual({
        cloneUrl,
        owner: "acme",
        name: "widgets",
      });
    });

    it("a clone URL that names no owner/name: the same error asks for --repo only", async () => {
      const file = await taskFile();
      const cwd = harness.fixture.origin.dir;
      const lacking = await cli(
        ...["enqueue", "good", "--task-file", file, "--redis", url(), "--cwd", cwd],
        ...["--clone-url", cwd],
      );
      expect(lacking.code).toBe(2);
      expect(lacking.stderr).toContain(
        "cannot queue: a job needs the GitHub repository (owner/name)",
      );
      expect(lacking.stderr).toContain("--clone-url is not a GitHub-like URL");
      expect(lacking.stderr).toContain("fix: pass --repo owner/name");
      expect(lacking.stderr).not.toContain("--clone-url URL");
    });

    it("an agent that is not there and no origin: the agent and both flags in one error", async () => {
      const file = await taskFile();
      const cwd = harness.fixture.origin.dir;
      const lacking = await cli(
        "enqueue",
        "nosuch",
        "--task-file",
        file,
        "--redis",
        url(),
        "--cwd",
        cwd,
      );
      expect(lacking.code).toBe(2);
      expect(lacking.stderr).toContain(
        'cannot queue: a job needs the agent: agent "nosuch" not found',
      );
      expect(lacking.stderr).toContain("--cwd DIR");
      expect(lacking.stderr).toContain("--clone-url URL");
      expect(lacking.stderr).toContain("--repo owner/name");
    });
  },
);
