import {
  NO_FINDINGS,
  type ProjectCheck,
  type ProjectFindings,
  type ReadProjectFile,
} from "./project-check.js";

/** pytest's configuration section in pyproject.toml. */
const PYPROJECT_PYTEST_CONFIG = /^\s*\[tool\.pytest(?:\.ini_options)?\]/m;
/** pytest named as a dependency: `"pytest>=8"` in a PEP 621 list, or `pytest = "^8"` (Poetry). */
const PYTEST_DEPENDENCY = /["']pytest(?![\w-])|^\s*pytest\s*=/m;
const TOX_ENVIRONMENTS = /^\s*\[(?:tox|testenv(?::[^\]]*)?)\]/m;
const TOX_PYTEST_CONFIG = /^\s*\[pytest\]/m;
const SETUP_CFG_PYTEST_CONFIG = /^\s*\[tool:pytest\]/m;

/** pytest, run the way the project runs its tools: uv, tox, Poetry or plainly. */
export async function detectPython(read: ReadProjectFile): Promise<ProjectFindings> {
  const pyproject = await read("pyproject.toml");
  const tox = await read("tox.ini");
  const usesPytest = await pytestEvidence(read, pyproject, tox);
  if (pyproject === undefined && tox === undefined && usesPytest === undefined) return NO_FINDINGS;

  const found: string[] = [];
  const checks: ProjectCheck[] = [];
  const test = (command: string, source: string): ProjectCheck => ({
    role: "test",
    command,
    source,
    parser: "parseTestOutput",
  });
  if (pyproject !== undefined) found.push("pyproject.toml");
  if (usesPytest !== undefined && (await read("uv.lock")) !== undefined) {
    found.push("uv.lock");
    checks.push(test("uv run pytest", `uv.lock and ${usesPytest}`));
  }
  if (tox !== undefined && TOX_ENVIRONMENTS.test(tox)) {
    found.push("tox.ini");
    checks.push(test("tox", "tox.ini"));
  }
  if (usesPytest !== undefined && (await read("poetry.lock")) !== undefined) {
    found.push("poetry.lock");
    checks.push(test("poetry run pytest", `poetry.lock and ${usesPytest}`));
  }
  if (usesPytest !== undefined) {
    if (found.length === 0) found.push(usesPytest);
    checks.push(test("pytest", usesPytest));
  }
  const skipped =
    checks.length === 0
      ? [{ what: found.join(", ") || "tox.ini", why: "no pytest configuration or dependency" }]
      : [];
  return { found, checks, skipped };
}

/** Where the project shows it uses pytest, or undefined. */
async function pytestEvidence(
  read: ReadProjectFile,
  pyproject: string | undefined,
  tox: string | undefined,
): Promise<string | undefined> {
  if (pyproject !== undefined && PYPROJECT_PYTEST_CONFIG.test(pyproject)) {
    return "pyproject.toml [tool.pytest]";
  }
  if (pyproject !== undefined && PYTEST_DEPENDENCY.test(pyproject)) {
    return "pytest among pyproject.toml's dependencies";
  }
  if ((await read("pytest.ini")) !== undefined) return "pytest.ini";
  if (tox !== undefined && TOX_PYTEST_CONFIG.test(tox)) return "tox.ini [pytest]";
  const setupCfg = await read("setup.cfg");
  if (setupCfg !== undefined && SETUP_CFG_PYTEST_CONFIG.test(setupCfg)) {
    return "setup.cfg [tool:pytest]";
  }
  return undefined;
}
