#!/usr/bin/env node
/**
 * Installs the formatters and linters that test/cli/init-lint-run.test.ts runs over what
 * `closer init` writes (prettier, eslint; ruff and mypy in a Python virtual environment) at
 * pinned versions into a cache folder: `$CLOSER_LINT_TOOLS_CACHE` or
 * `~/.cache/closer-lint-tools`. biome is closer's own dev dependency. Not the package's
 * dependencies. An install that fails is reported and left out: the test then skips that
 * tool's projects and says why. Prints the cache folder's layout as JSON on its last line.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const NODE_TOOLS = { prettier: "3.10.1", eslint: "9.39.5", "@eslint/js": "9.39.5" };
const PYTHON_TOOLS = { ruff: "0.16.9", mypy: "2.4.0" };

const cache =
  process.env.CLOSER_LINT_TOOLS_CACHE ?? path.join(os.homedir(), ".cache", "closer-lint-tools");
const tag = (tools) =>
  Object.entries(tools)
    .map(([name, version]) => `${name.replace(/[@/]/g, "")}-${version}`)
    .join("_");
const nodePrefix = path.join(cache, `node_${tag(NODE_TOOLS)}`);
const pythonVenv = path.join(cache, `python_${tag(PYTHON_TOOLS)}`);
const bin = process.platform === "win32" ? "Scripts" : "bin";

function installNode() {
  if (existsSync(path.join(nodePrefix, "node_modules", ".bin", "eslint"))) return undefined;
  mkdirSync(nodePrefix, { recursive: true });
  try {
    execFileSync(
      "npm",
      [
        "install",
        "--prefix",
        nodePrefix,
        "--no-audit",
        "--no-fund",
        "--no-save",
        ...Object.entries(NODE_TOOLS).map(([name, version]) => `${name}@${version}`),
      ],
      { stdio: ["ignore", 2, 2], timeout: 300_000 },
    );
    return undefined;
  } catch (error) {
    return `npm could not install ${Object.keys(NODE_TOOLS).join(", ")}: ${error.message}`;
  }
}

function installPython() {
  if (existsSync(path.join(pythonVenv, bin, "mypy"))) return undefined;
  try {
    rmSync(pythonVenv, { recursive: true, force: true });
    execFileSync("python3", ["-m", "venv", pythonVenv], {
      stdio: ["ignore", 2, 2],
      timeout: 120_000,
    });
    execFileSync(
      path.join(pythonVenv, bin, "pip"),
      [
        "install",
        "--quiet",
        ...Object.entries(PYTHON_TOOLS).map(([name, version]) => `${name}==${version}`),
      ],
      { stdio: ["ignore", 2, 2], timeout: 300_000 },
    );
    return undefined;
  } catch (error) {
    rmSync(pythonVenv, { recursive: true, force: true });
    return `python3 and pip could not install ${Object.keys(PYTHON_TOOLS).join(", ")}: ${error.message}`;
  }
}

const nodeProblem = installNode();
if (nodeProblem) console.error(nodeProblem);
const pythonProblem = installPython();
if (pythonProblem) console.error(pythonProblem);
console.log(
  JSON.stringify({
    nodeModules: nodeProblem ? null : path.join(nodePrefix, "node_modules"),
    pythonBin: pythonProblem ? null : path.join(pythonVenv, bin),
    nodeProblem: nodeProblem ?? null,
    pythonProblem: pythonProblem ?? null,
  }),
);
