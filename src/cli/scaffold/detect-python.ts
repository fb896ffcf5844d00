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
const PYPROJECT_RUFF_CONFIG = /^\s*\[tool\.ruff[\].]/m;
/** ruff named as a dependency, as pytest is. */
const RUFF_DEPENDENCY = /["']ruff(?![\w-])|^\s*ruff\s*=/m;
const PYPROJECT_MYPY_CONFIG = /^\s*\[tool\.mypy\]/m;
const INI_MYPY_CONFIG = /^\s*\[mypy\]/m;
/** mypy named as a dependency; not mypy-extensions. */
const MYPY_DEPENDENCY = /["']mypy(?![\w-])|^\s*mypy\s*=/m;
/** `files = …` in mypy's configuration: `mypy` alone checks them, and refuses to run without. */
const MYPY_FILES = /^\s*files\s*=/m;

/**
 * pytest, run the way the project runs its tools: uv, tox, Poetry or plainly; and ruff and mypy
 * where the project configures them or names them as dependencies.
 */
export async function detectPython(read: ReadProjectFile): Promise<ProjectFindings> {
  const pyproject = await read("pyproject.toml");
  const tox = await read("tox.ini");
  const usesPytest = await pytestEvidence(read, pyproject, tox);
  const tools = await toolChecks(read, pyproject);
  if (
    pyproject === undefined &&
    tox === undefined &&
    usesPytest === undefined &&
    tools.checks.length === 0
  ) {
    return NO_FINDINGS;
  }

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
      ? [
          {
            what: found.join(", ") || (tox === undefined ? "pytest" : "tox.ini"),
            why: "no pytest configuration or dependency",
          },
        ]
      : [];
  for (const file of tools.found) if (!found.includes(file)) found.push(file);
  return { found, checks: [...checks, ...tools.checks], skipped };
}

/** ruff as the linter and mypy as the type checker, where the project configures or installs them. */
async function toolChecks(
  read: ReadProjectFile,
  pyproject: string | undefined,
): Promise<{ found: string[]; checks: ProjectCheck[] }> {
  const found: string[] = [];
  const checks: ProjectCheck[] = [];
  const run =
    (await read("uv.lock")) !== undefined
      ? "uv run "
      : (await read("poetry.lock")) !== undefined
        ? "poetry run "
        : "";
  const ruff = await ruffEvidence(read, pyproject);
  if (ruff !== undefined) {
    if (ruff.file !== undefined) found.push(ruff.file);
    checks.push({ role: "lint", command: `${run}ruff check .`, source: ruff.source });
  }
  const mypy = await mypyEvidence(read, pyproject);
  if (mypy !== undefined) {
    if (mypy.file !== undefined) found.push(mypy.file);
    const command = `${run}${mypy.configuresFiles ? "mypy" : "mypy ."}`;
    checks.push({ role: "typecheck", command, source: mypy.source });
  }
  return { found, checks };
}

async function ruffEvidence(
  read: ReadProjectFile,
  pyproject: string | undefined,
): Promise<{ source: string; file?: string } | undefined> {
  for (const file of ["ruff.toml", ".ruff.toml"]) {
    if ((await read(file)) !== undefined) return { source: file, file };
  }
  if (pyproject !== undefined && PYPROJECT_RUFF_CONFIG.test(pyproject)) {
    return { source: "pyproject.toml [tool.ruff]" };
  }
  if (pyproject !== undefined && RUFF_DEPENDENCY.test(pyproject)) {
    return { source: "ruff among pyproject.toml's dependencies" };
  }
  return undefined;
}

async function mypyEvidence(
  read: ReadProjectFile,
  pyproject: string | undefined,
): Promise<{ source: string; file?: string; configuresFiles: boolean } | undefined> {
  for (const file of ["mypy.ini", ".mypy.ini"]) {
    const text = await read(file);
    if (text === undefined) continue;
    return { source: file, file, configuresFiles: MYPY_FILES.test(section(text, INI_MYPY_CONFIG)) };
  }
  if (pyproject !== undefined && PYPROJECT_MYPY_CONFIG.test(pyproject)) {
    const configuresFiles = MYPY_FILES.test(section(pyproject, PYPROJECT_MYPY_CONFIG));
    return { source: "pyproject.toml [tool.mypy]", configuresFiles };
  }
  const setupCfg = await read("setup.cfg");
  if (setupCfg !== undefined && INI_MYPY_CONFIG.test(setupCfg)) {
    const configuresFiles = MYPY_FILES.test(section(setupCfg, INI_MYPY_CONFIG));
    return { source: "setup.cfg [mypy]", file: "setup.cfg", configuresFiles };
  }
  if (pyproject !== undefined && MYPY_DEPENDENCY.test(pyproject)) {
    return { source: "mypy among pyproject.toml's dependencies", configuresFiles: false };
  }
  return undefined;
}

/** The text of the section `heading` starts, up to the next `[section]`; empty when absent. */
function section(text: string, heading: RegExp): string {
  const start = heading.exec(text);
  if (start === null) return "";
  const rest = text.slice(start.index + start[0].length);
  const next = /^\s*\[/m.exec(rest);
  return next === null ? rest : rest.slice(0, next.index);
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
