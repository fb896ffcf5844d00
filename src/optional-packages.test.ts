import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "./errors.js";
import {
  assertPackagesInstalled,
  OPENAI_COMPATIBLE_PACKAGES,
  packageNameOf,
  QUEUE_PACKAGES,
} from "./optional-packages.js";

let root: string;
/** A file of an installed closer-agent, the place packages are looked up from. */
let from: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "closer-optional-"));
  const bin = join(root, "node_modules", "closer-agent", "dist", "bin");
  await mkdir(bin, { recursive: true });
  from = pathToFileURL(join(bin, "closer-core.cjs")).href;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A package as npm installs it beside closer-agent. */
async function install(name: string): Promise<void> {
  const dir = join(root, "node_modules", name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name, main: "index.js" }));
  await writeFile(join(dir, "index.js"), "module.exports = {};\n");
}

function thrownBy(action: () => void): CloserError {
  try {
    action();
  } catch (error) {
    if (error instanceof CloserError) return error;
    throw error;
  }
  throw new Error("nothing was thrown");
}

describe("docs/cli.md#install the packages only some paths use", () => {
  it("names each missing package and the npm install that brings it", () => {
    const error = thrownBy(() => assertPackagesInstalled(OPENAI_COMPATIBLE_PACKAGES, from));
    expect(error.code).toBe("config_error");
    expect(error.describe()).toContain(
      "the openai-compatible backend needs ai and @ai-sdk/openai-compatible, which are not installed",
    );
    expect(error.describe()).toContain("fix: npm install ai@6 @ai-sdk/openai-compatible@2 ");
  });

  it("names only what is missing, and passes once everything is installed", async () => {
    await install("ai");
    const error = thrownBy(() => assertPackagesInstalled(OPENAI_COMPATIBLE_PACKAGES, from));
    expect(error.describe()).toContain("needs @ai-sdk/openai-compatible, which is not installed");
    expect(error.fields.fix).toMatch(/^npm install @ai-sdk\/openai-compatible@2 where/);
    await install("@ai-sdk/openai-compatible");
    expect(() => assertPackagesInstalled(OPENAI_COMPATIBLE_PACKAGES, from)).not.toThrow();
  });

  it("finds the queue's BullMQ in closer's own dependencies here", () => {
    expect(() => assertPackagesInstalled(QUEUE_PACKAGES)).not.toThrow();
    const error = thrownBy(() => assertPackagesInstalled(QUEUE_PACKAGES, from));
    expect(error.describe()).toContain(
      "the job queue (closer enqueue, worker, queue, watch and serve) needs bullmq",
    );
    expect(error.fields.fix).toMatch(/^npm install bullmq@5 where/);
  });

  it("installs the major version package.json's optional peer dependencies accept", async () => {
    const manifest = JSON.parse(
      await readFile(new URL("../package.json", import.meta.url), "utf8"),
    );
    const specs = [...OPENAI_COMPATIBLE_PACKAGES.packages, ...QUEUE_PACKAGES.packages];
    for (const spec of specs) {
      const name = packageNameOf(spec);
      const major = spec.slice(name.length + 1);
      expect(manifest.peerDependencies[name], name).toMatch(new RegExp(`^\\^${major}\\.`));
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(manifest.devDependencies[name], `${name} for closer's own tests`).toBeDefined();
      expect(manifest.dependencies[name], name).toBeUndefined();
    }
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(specs.map(packageNameOf).sort());
  });
});
