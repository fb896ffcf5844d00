#!/usr/bin/env node
/**
 * Installs the agent CLIs of the conformance suite (test/backends-real/clis.json)
 * at their pinned versions into a cache folder, one npm prefix per version:
 * `$CLOSER_BACKENDS_CACHE` or `~/.cache/closer-backends`. Not the package's
 * dependencies. An install that fails is reported and left out: the suite
 * then skips that CLI's tests and says why.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const clis = JSON.parse(readFileSync(path.join(here, "../test/backends-real/clis.json"), "utf8"));
const cache =
  process.env.CLOSER_BACKENDS_CACHE ?? path.join(os.homedir(), ".cache", "closer-backends");

for (const [name, { package: pkg, version, bin }] of Object.entries(clis)) {
  const prefix = path.join(cache, `${name}-${version}`);
  const executable = path.join(prefix, "node_modules", ".bin", bin);
  if (existsSync(executable)) {
    console.log(`${name}: ${pkg}@${version} already in ${prefix}`);
    continue;
  }
  mkdirSync(prefix, { recursive: true });
  try {
    execFileSync(
      "npm",
      ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", `${pkg}@${version}`],
      { stdio: ["ignore", "inherit", "inherit"], timeout: 600_000 },
    );
    console.log(`${name}: installed ${pkg}@${version} in ${prefix}`);
  } catch (error) {
    console.error(`${name}: could not install ${pkg}@${version}: ${error.message}`);
  }
}
