import { describe, expect, it } from "vitest";
import { chooseChecks } from "./choose-checks.js";
import { detectPython } from "./detect-python.js";

const reader = (files: Record<string, string>) => async (path: string) => files[path];

async function commands(files: Record<string, string>) {
  const findings = await detectPython(reader(files));
  const { chosen } = chooseChecks(findings);
  return {
    found: findings.found,
    chosen: Object.fromEntries(
      chosen.map((check) => [check.role, `${check.command} (${check.source})`]),
    ),
  };
}

describe("detectPython, ruff and mypy", () => {
  it("lints with ruff and type-checks with mypy configured in pyproject.toml", async () => {
    const pyproject =
      '[project]\nname = "calc"\n\n[tool.ruff.lint]\nselect = ["E"]\n\n[tool.mypy]\nstrict = true\n';
    expect(await commands({ "pyproject.toml": pyproject })).toEqual({
      found: ["pyproject.toml"],
      chosen: {
        typecheck: "mypy . (pyproject.toml [tool.mypy])",
        lint: "ruff check . (pyproject.toml [tool.ruff])",
      },
    });
  });

  it("runs mypy alone when its configuration names the files, and through uv with a uv.lock", async () => {
    const result = await commands({
      "pyproject.toml":
        '[project]\nname = "calc"\n[dependency-groups]\ndev = ["pytest>=8", "ruff>=0.6"]\n',
      "uv.lock": "version = 1\n",
      "mypy.ini": "[mypy]\nfiles = src\n\n[mypy-tests.*]\nignore_errors = True\n",
    });
    expect(result.found).toEqual(["pyproject.toml", "uv.lock", "mypy.ini"]);
    expect(result.chosen).toEqual({
      test: "uv run pytest (uv.lock and pytest among pyproject.toml's dependencies)",
      typecheck: "uv run mypy (mypy.ini)",
      lint: "uv run ruff check . (ruff among pyproject.toml's dependencies)",
    });
  });

  it("reads ruff.toml and setup.cfg [mypy], and takes no mypy-extensions for mypy", async () => {
    expect(
      (
        await commands({
          "ruff.toml": "line-length = 100\n",
          "setup.cfg": "[mypy]\nstrict = True\n",
        })
      ).chosen,
    ).toEqual({ typecheck: "mypy . (setup.cfg [mypy])", lint: "ruff check . (ruff.toml)" });
    expect(
      (await commands({ "pyproject.toml": '[project]\ndependencies = ["mypy-extensions"]\n' }))
        .chosen,
    ).toEqual({});
  });
});
