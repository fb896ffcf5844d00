import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registryHostsOf } from "./registry-hosts.js";

let tree: string | undefined;
afterEach(async () => {
  if (tree !== undefined) await rm(tree, { recursive: true, force: true });
  tree = undefined;
});

async function treeWith(...files: string[]): Promise<string> {
  tree = await mkdtemp(join(tmpdir(), "closer-registries-"));
  for (const file of files) await writeFile(join(tree, file), "");
  return tree;
}

describe("registryHostsOf", () => {
  it("names the registries of the ecosystems whose lockfiles the tree has", async () => {
    expect(registryHostsOf(await treeWith("yarn.lock", "go.mod"))).toEqual([
      "registry.npmjs.org",
      "registry.yarnpkg.com",
      "repo.yarnpkg.com",
      "proxy.golang.org",
      "sum.golang.org",
    ]);
  });

  it("names none for a tree of no known ecosystem", async () => {
    expect(registryHostsOf(await treeWith("README.md"))).toEqual([]);
  });
});
