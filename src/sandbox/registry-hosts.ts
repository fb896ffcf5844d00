/**
 * The package registries of the ecosystems a tree uses, found by its lockfiles and manifests:
 * hosts the backend may reach by default under the OS sandbox (docs/sandbox.md#registries).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const NPM = ["registry.npmjs.org"];
const YARN = [...NPM, "registry.yarnpkg.com", "repo.yarnpkg.com"];
const PYPI = ["pypi.org", "files.pythonhosted.org"];
const GO = ["proxy.golang.org", "sum.golang.org"];
const CRATES = ["crates.io", "index.crates.io", "static.crates.io"];
const DENO = ["jsr.io", "deno.land", ...NPM];

/** A file of the tree, and the hosts of its ecosystem's registry (docs/sandbox.md#registries). */
export const REGISTRIES_BY_FILE: readonly (readonly [string, readonly string[]])[] = [
  ["package-lock.json", NPM],
  ["npm-shrinkwrap.json", NPM],
  ["pnpm-lock.yaml", NPM],
  ["yarn.lock", YARN],
  ["bun.lock", NPM],
  ["bun.lockb", NPM],
  ["deno.lock", DENO],
  ["uv.lock", PYPI],
  ["poetry.lock", PYPI],
  ["requirements.txt", PYPI],
  ["pyproject.toml", PYPI],
  ["go.mod", GO],
  ["Cargo.lock", CRATES],
  ["Cargo.toml", CRATES],
];

/** The registry hosts of the ecosystems whose files are at the top of `tree`. */
export function registryHostsOf(tree: string): string[] {
  const hosts = REGISTRIES_BY_FILE.filter(([file]) => existsSync(join(tree, file))).flatMap(
    ([, found]) => found,
  );
  return [...new Set(hosts)];
}
