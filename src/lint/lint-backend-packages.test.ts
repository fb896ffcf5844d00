import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResolvedAgent } from "../ports/agent.js";
import type { BackendKind } from "../ports/runner-config.js";
import { lintBackendPackages } from "./lint-backend-packages.js";
import { makeProblemCollector } from "./problem.js";

let root: string;
/** A file of a closer-agent installed without the optional packages. */
let bare: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "closer-lint-packages-"));
  const bin = join(root, "node_modules", "closer-agent", "dist", "bin");
  await mkdir(bin, { recursive: true });
  bare = pathToFileURL(join(bin, "closer-core.cjs")).href;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The parts of an agent the check reads. */
function agentOf(kind: BackendKind): ResolvedAgent {
  const agentJson = join(root, ".agent", "local", "agent.json");
  return { runner: { backend: { kind } }, files: { agentJson } } as unknown as ResolvedAgent;
}

describe("docs/cli.md#install the openai-compatible backend's packages, checked before a run", () => {
  it("is an error at runner.backend.kind naming the packages and the npm install", () => {
    const problems = makeProblemCollector("local", root);
    lintBackendPackages(agentOf("openai-compatible"), problems, bare);
    expect(problems.problems).toEqual([
      expect.objectContaining({
        severity: "error",
        file: ".agent/local/agent.json",
        jsonPath: "runner.backend.kind",
        message:
          "the openai-compatible backend needs ai and @ai-sdk/openai-compatible, which are not installed",
        fix: expect.stringMatching(/^npm install ai@6 @ai-sdk\/openai-compatible@2 where/),
      }),
    ]);
  });

  it("says nothing for another backend, or where the packages are installed", () => {
    const problems = makeProblemCollector("local", root);
    lintBackendPackages(agentOf("claude-sdk"), problems, bare);
    lintBackendPackages(agentOf("openai-compatible"), problems);
    expect(problems.problems).toEqual([]);
  });
});
