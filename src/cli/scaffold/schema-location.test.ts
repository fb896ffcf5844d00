import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runningPackageRoot, SCHEMA_FILES, schemaReference } from "./schema-location.js";

let root: string;
let project: string;
let agentDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "closer-schema-"));
  project = join(root, "project");
  agentDir = join(project, ".agent", "demo");
  await mkdir(agentDir, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A closer package with its schemas, as npm installs it. */
async function closerPackage(dir: string): Promise<void> {
  await mkdir(join(dir, "schemas"), { recursive: true });
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "closer-agent", version: "0.0.0" }),
  );
  for (const file of Object.values(SCHEMA_FILES)) {
    await writeFile(join(dir, "schemas", file), JSON.stringify({ title: file }));
  }
}

/** What the reference written into the agent folder leads to, read the way an editor reads it. */
async function follow(reference: string | undefined): Promise<string> {
  if (reference === undefined) throw new Error("no $schema was written");
  const path = reference.startsWith("file:")
    ? fileURLToPath(reference)
    : resolve(agentDir, reference);
  return JSON.parse(await readFile(path, "utf8")).title;
}

describe("schemaReference", () => {
  it("points into node_modules/closer-agent relatively when closer is a dependency of the project", async () => {
    await closerPackage(join(project, "node_modules", "closer-agent"));
    const global = join(root, "global", "lib", "node_modules", "closer-agent");
    await closerPackage(global);
    for (const file of Object.values(SCHEMA_FILES)) {
      const reference = await schemaReference(agentDir, file, global);
      expect(reference).toBe(`../../node_modules/closer-agent/schemas/${file}`);
      expect(await follow(reference)).toBe(file);
    }
  });

  it("finds closer hoisted to a parent's node_modules, or linked into the project", async () => {
    const workspace = join(root, "node_modules", "closer-agent");
    await closerPackage(workspace);
    const hoisted = await schemaReference(agentDir, SCHEMA_FILES.agent, undefined);
    expect(hoisted).toBe("../../../node_modules/closer-agent/schemas/agent.schema.json");
    expect(await follow(hoisted)).toBe("agent.schema.json");

    await mkdir(join(project, "node_modules"));
    await symlink(workspace, join(project, "node_modules", "closer-agent"), "dir");
    const linked = await schemaReference(agentDir, SCHEMA_FILES.agent, undefined);
    expect(linked).toBe("../../node_modules/closer-agent/schemas/agent.schema.json");
  });

  it("gives the file URL of the running closer's schema when the project has none (global, npx)", async () => {
    const global = join(root, "npx-cache", "node_modules", "closer-agent");
    await closerPackage(global);
    const reference = await schemaReference(agentDir, SCHEMA_FILES.registry, global);
    expect(reference).toBe(pathToFileURL(join(global, "schemas", SCHEMA_FILES.registry)).href);
    expect(await follow(reference)).toBe(SCHEMA_FILES.registry);
  });

  it("writes none when no closer package with schemas is found", async () => {
    expect(await schemaReference(agentDir, SCHEMA_FILES.agent, undefined)).toBeUndefined();
    expect(await schemaReference(agentDir, SCHEMA_FILES.agent, join(root, "gone"))).toBeUndefined();
  });
});

describe("runningPackageRoot", () => {
  it("finds the closer package the code runs from, with the schemas it ships", async () => {
    const packageRoot = await runningPackageRoot();
    if (packageRoot === undefined) throw new Error("the running closer package was not found");
    const manifest = JSON.parse(await readFile(join(packageRoot, "package.json"), "utf8"));
    expect(manifest.name).toBe("closer-agent");
    const schema = JSON.parse(
      await readFile(join(packageRoot, "schemas", SCHEMA_FILES.agent), "utf8"),
    );
    expect(schema.properties).toHaveProperty("runner");
  });

  it("walks up from a file inside an installed package, and stops at the top", async () => {
    const installed = join(root, "lib", "node_modules", "closer-agent");
    await closerPackage(installed);
    await mkdir(join(installed, "dist", "bin"), { recursive: true });
    const bundle = pathToFileURL(join(installed, "dist", "bin", "closer.js")).href;
    expect(await runningPackageRoot(bundle)).toBe(installed);
    expect(
      await runningPackageRoot(pathToFileURL(join(root, "elsewhere.js")).href),
    ).toBeUndefined();
  });
});
