import { mkdir, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cwd, useTempCwd, writeAgent } from "../../test/support/agent-folder.js";
import { MAX_DEFINITION_BYTES, readDefinitionFiles } from "./definition-files.js";
import { loadAgent } from "./load-agent.js";

useTempCwd();

const REGISTRY = { steps: { "initial.task": {} } };

describe("loadAgent: the definition is read once", () => {
  it("keeps the files it parsed, with their hash, where copies and JSON do not see them", async () => {
    const dir = await writeAgent("once", { agent: { name: "once" }, registry: REGISTRY });
    await mkdir(path.join(dir, "prompts"));
    await writeFile(path.join(dir, "prompts", "system.md"), "Be careful.\n");

    const agent = await loadAgent("once", { cwd });

    const read = await readDefinitionFiles(dir);
    expect(agent.definitionFiles?.hash).toBe(read.hash);
    expect(agent.definitionFiles?.files.map((file) => file.path)).toEqual([
      "agent.json",
      "prompts/system.md",
      "steps_registry.json",
    ]);
    expect(Object.keys(agent)).not.toContain("definitionFiles");
    expect(JSON.stringify(agent)).not.toContain("definitionFiles");
    expect({ ...agent }.definitionFiles).toBeUndefined();
  });

  it("parses agent.json and the registry from the files given, not from the disk", async () => {
    const dir = await writeAgent("once", {
      agent: { name: "once", description: "as read" },
      registry: REGISTRY,
    });
    const files = await readDefinitionFiles(dir);
    await writeAgent("once", {
      agent: { name: "once", description: "changed since" },
      registry: { steps: { "initial.other": {} } },
    });

    const agent = await loadAgent("once", { cwd, dir, files });

    expect(agent.description).toBe("as read");
    expect(Object.keys(agent.registry.steps)).toEqual(["initial.task"]);
    expect(agent.definitionFiles).toBe(files);
  });

  it("reads a registry that is a symlink out of the folder from the disk, and carries no files", async () => {
    const dir = await writeAgent("linked", { agent: { name: "linked" } });
    const shared = path.join(cwd, "shared-registry.json");
    await writeFile(shared, JSON.stringify(REGISTRY));
    await symlink(shared, path.join(dir, "steps_registry.json"));

    const agent = await loadAgent("linked", { cwd });

    expect(Object.keys(agent.registry.steps)).toEqual(["initial.task"]);
    expect(agent.definitionFiles).toBeUndefined();
  });

  it("loads a folder too large to be copied, carrying no files", async () => {
    const dir = await writeAgent("large", { agent: { name: "large" }, registry: REGISTRY });
    const data = path.join(dir, "data.bin");
    await writeFile(data, "");
    await truncate(data, MAX_DEFINITION_BYTES + 1);

    const agent = await loadAgent("large", { cwd });

    expect(agent.name).toBe("large");
    expect(agent.definitionFiles).toBeUndefined();
  });
});
