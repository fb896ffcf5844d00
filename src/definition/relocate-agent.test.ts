import { cp, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cwd, useTempCwd, writeAgent } from "../../test/support/agent-folder.js";
import { applyCliOverrides } from "./apply-cli-overrides.js";
import { loadAgent } from "./load-agent.js";
import { relocateAgent } from "./relocate-agent.js";

useTempCwd();

/**
 * An agent that uses every path the loader derives from its folder: a registry and a
 * system prompt of their own, custom validators; and paths that must stay as written.
 */
async function writeMover(): Promise<string> {
  const dir = path.join(cwd, ".agent", "mover");
  await writeAgent("mover", {
    agent: {
      name: "mover",
      runner: {
        registry: "config/registry.json",
        systemPrompt: "./prompts//system.md",
        backend: {
          kind: "command",
          command: ["./bin/agent.sh", "--model", "small"],
          // Written by the user as the project's: not derived from the folder.
          claudePath: path.join(dir, "bin", "claude"),
        },
      },
    },
    registryName: "config/registry.json",
    registry: {
      completionPatterns: { "custom-failed": { description: "a custom check failed" } },
      validators: {
        reviewed: {
          type: "custom",
          module: "validators/reviewed.mjs",
          failurePattern: "custom-failed",
        },
        nested: {
          type: "custom",
          module: "./validators/deep/nested.mjs",
          failurePattern: "custom-failed",
        },
        tests: { type: "command", command: "npm test", failurePattern: "custom-failed" },
      },
      steps: { "initial.task": {} },
      completionSteps: {
        "complete.task": {
          c2: "retry",
          c3: "task",
          completionConditions: [{ validator: "reviewed" }, { validator: "tests" }],
          closureReview: {
            c2: "review",
            c3: "task",
            backend: { kind: "replay", replayFrom: "recorded/review.json" },
          },
        },
      },
    },
  });
  await mkdir(path.join(dir, "validators"), { recursive: true });
  await writeFile(path.join(dir, "validators", "reviewed.mjs"), "export default () => ({});\n");
  return dir;
}

/** Every string of `value` whose text holds `folder`, with where it is. */
function stringsInto(value: unknown, folder: string, at = ""): string[] {
  if (typeof value === "string") return value.includes(folder) ? [`${at}: ${value}`] : [];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    stringsInto(inner, folder, at === "" ? key : `${at}.${key}`),
  );
}

describe("relocateAgent", () => {
  it("is the agent loadAgent makes from a copy of the folder", async () => {
    const dir = await writeMover();
    const copy = path.join(cwd, "runs", "run-1", "definition");
    await cp(dir, copy, { recursive: true });
    const loaded = await loadAgent("mover", { cwd });

    const relocated = relocateAgent(loaded, copy);

    expect(relocated).toEqual(await loadAgent("mover", { cwd, dir: copy }));
    expect(relocated.definitionFiles).toBe(loaded.definitionFiles);
    expect(Object.isFrozen(relocated.registry.validators)).toBe(true);
  });

  it("leaves no string pointing into the agent's folder but one the user wrote as such", async () => {
    const dir = await writeMover();
    const copy = path.join(cwd, "copy");
    const loaded = await loadAgent("mover", { cwd });
    expect(stringsInto(loaded, dir).length).toBeGreaterThan(5);

    const relocated = relocateAgent(loaded, copy);

    expect(stringsInto(relocated, dir)).toEqual([
      `runner.backend.claudePath: ${path.join(dir, "bin", "claude")}`,
    ]);
    expect(stringsInto(relocated, copy)).toEqual([
      `dir: ${copy}`,
      `files.agentJson: ${path.join(copy, "agent.json")}`,
      `files.registry: ${path.join(copy, "config", "registry.json")}`,
      `runner.systemPromptPath: ${path.join(copy, "prompts", "system.md")}`,
      `registry.validators.reviewed.module: ${path.join(copy, "validators", "reviewed.mjs")}`,
      `registry.validators.nested.module: ${path.join(copy, "validators", "deep", "nested.mjs")}`,
    ]);
    // Resolved by the backend against the project's agent folder, as written.
    expect(relocated.runner.backend.command).toEqual(["./bin/agent.sh", "--model", "small"]);
    const review = relocated.registry.completionSteps["complete.task"]?.closureReview;
    expect(review?.backend?.replayFrom).toBe("recorded/review.json");
  });

  it("keeps the command line's overrides", async () => {
    await writeMover();
    const overridden = applyCliOverrides(await loadAgent("mover", { cwd }), {
      maxIterations: 7,
      model: "large",
    });

    const relocated = relocateAgent(overridden, path.join(cwd, "copy"));

    expect(relocated.runner.maxIterations).toBe(7);
    expect(relocated.runner.backend.model).toBe("large");
    expect(relocated.cliOverrides).toEqual({ maxIterations: 7, model: "large" });
    expect(relocated.definitionFiles).toBe(overridden.definitionFiles);
  });
});
