/**
 * docs/replay.md#backends: the corpus's run of each backend kind, recorded
 * through that backend's protocol-faithful double, replays with the same
 * decisions; an edited definition still shows where it decides otherwise.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { replayRecordedRun } from "../../src/cli/actions/replay.js";
import { BACKEND_KINDS } from "../../src/ports/runner-config.js";
import { BACKEND_RUNS } from "../support/recorded-backend-runs.js";
import { CORPUS_DIR, RECORDED_RUNS } from "../support/recorded-runs.js";

const CORPUS = resolve(CORPUS_DIR);
const NAMES = BACKEND_RUNS.map((recipe) => recipe.name);

/** `closer replay`'s action: its exit code and what it printed. */
async function replay(run: string, flags: { runsDir?: string; definition?: string } = {}) {
  const printed: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    printed.push(String(chunk));
    return true;
  });
  try {
    const code = await replayRecordedRun(run, flags);
    return { code, stdout: printed.join("") };
  } finally {
    spy.mockRestore();
  }
}

describe("docs/replay.md#backends: a run of every backend kind replays with the same decisions", () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("the corpus holds a run of each backend kind", async () => {
    // The corpus's other runs are scripted; a run's kind is in its definition snapshot.
    const kinds = new Set<string>(["scripted"]);
    for (const { name } of RECORDED_RUNS) {
      const file = join(CORPUS, name, "definition", "agent.json");
      const agent = JSON.parse(await readFile(file, "utf8")) as {
        runner?: { backend?: { kind?: string } };
      };
      const kind = agent.runner?.backend?.kind;
      if (kind !== undefined) kinds.add(kind);
    }
    expect([...kinds].sort()).toEqual([...BACKEND_KINDS].sort());
  });

  it.each(NAMES)("%s: closer replay exits 0, the same decisions as recorded", async (name) => {
    const result = await replay(name, { runsDir: CORPUS });

    expect(result.stdout).toMatch(new RegExp(`^replay of ${name}: the same \\d+ decisions`));
    expect(result.code).toBe(0);
  });

  it.each(NAMES)(
    "%s: another failure pattern for the tests is a difference, and exit 1",
    async (name) => {
      const folder = await mkdtemp(join(tmpdir(), "closer-replay-"));
      made.push(folder);
      const runDir = join(folder, name);
      await cp(join(CORPUS, name), runDir, { recursive: true });
      const definition = join(folder, "edited");
      await cp(join(runDir, "definition"), definition, { recursive: true });
      const registryFile = join(definition, "steps_registry.json");
      const registry = JSON.parse(await readFile(registryFile, "utf8")) as {
        validators: Record<string, Record<string, unknown>>;
      };
      registry.validators["tests-pass"] = {
        ...registry.validators["tests-pass"],
        failurePattern: "git-dirty",
      };
      await writeFile(registryFile, JSON.stringify(registry));

      const result = await replay(runDir, { definition });

      expect(result.stdout).toMatch(
        /iteration \d+: validator tests-pass failed \(test-failed\) → failed \(git-dirty\)/,
      );
      expect(result.code).toBe(1);
    },
  );
});
