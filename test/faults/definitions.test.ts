import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { fault } from "./support/fault.js";
import { type FaultRepo, makeFaultRepo } from "./support/fault-repo.js";
import { runFolders } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

describe("Agent definitions", () => {
  let repo: FaultRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  fault(
    {
      what: "agent.json is not valid JSON",
      does: "exit 2 before any query: the file, the line and column, and how to fix it; no run folder",
    },
    async () => {
      repo = await makeFaultRepo();
      const file = join(repo.dir, ".agent/faulty/agent.json");
      await writeFile(file, (await readFile(file, "utf8")).replace('"name"', '"name" "'));
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("agent.json");
      expect(result.stderr).toMatch(/line \d+/);
      expect(await runFolders(repo.dir)).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
  );
});
