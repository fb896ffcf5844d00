import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cli } from "./support/cli-repo.js";

const RUN_ID = "20300101-000000-npmlnt";

/** `npm run lint` failing: npm's banner first, eslint's problem below, npm's trailer on stderr. */
const LINT_STDOUT = [
  "",
  "> proj@1.0.0 lint",
  "> eslint .",
  "",
  "",
  "/repo/src/a.js",
  "  3:5  error  'x' is not defined  no-undef",
  "",
  "✖ 1 problem (1 error, 0 warnings)",
  "",
].join("\n");
const LINT_STDERR = "npm error Lifecycle script `lint` failed with error:\nnpm error code 1\n";

let runsDir: string;
beforeEach(async () => {
  runsDir = await mkdtemp(join(tmpdir(), "closer-quoted-"));
  const dir = join(runsDir, RUN_ID);
  await mkdir(dir, { recursive: true });
  const event = (at: number, body: Record<string, unknown>) =>
    JSON.stringify({ v: 1, at: 1893456000000 + at, runId: RUN_ID, ...body });
  await writeFile(
    join(dir, "events.jsonl"),
    `${[
      event(0, {
        type: "run-start",
        agent: "fixer",
        task: "fix the lint",
        cwd: "/repo",
        maxIterations: 1,
        resumed: false,
      }),
      event(1, {
        type: "setup",
        command: "npm ci",
        exitCode: 0,
        durationMs: 12_300,
        stdout: "\n> proj@1.0.0 prepare\n> husky\n\nadded 120 packages in 12s\n",
      }),
      event(2, { type: "iteration-start", iteration: 1, step: "initial.task" }),
      event(3, {
        type: "validator-end",
        iteration: 1,
        validator: "lint",
        valid: false,
        pattern: "lint-error",
        exitCode: 1,
        durationMs: 900,
        // The check's own extraction of its stdout: quoted once, by the output's lines.
        params: { errorOutput: LINT_STDOUT },
        stdout: LINT_STDOUT,
        stderr: LINT_STDERR,
      }),
      event(4, {
        type: "run-end",
        status: "max_iterations",
        success: false,
        reason: "no verified completion within 1 iterations",
        iterations: 1,
        costUsd: 0,
      }),
    ].join("\n")}\n`,
  );
});
afterEach(async () => {
  await rm(runsDir, { recursive: true, force: true });
});

describe("docs/completion.md#quoted-output: a failed check is quoted by its meaningful lines", () => {
  it("closer show names the lint error under the check, not npm's banner or trailer", async () => {
    const { code, stdout, stderr } = await cli("show", RUN_ID, "--runs-dir", runsDir);
    expect(code, stderr).toBe(0);
    const check = stdout.slice(stdout.indexOf("✗ validator lint"), stdout.indexOf("\nEnd "));
    expect(check).toContain("| 3:5  error  'x' is not defined  no-undef");
    expect(check).toContain("| ✖ 1 problem (1 error, 0 warnings)");
    expect(check).not.toContain("proj@1.0.0");
    expect(check).not.toContain("> eslint .");
    expect(check).not.toContain("npm error");
    // The setup that passed is listed without its output.
    expect(stdout).toMatch(/Setup\n {2}✓ npm ci \(exit 0, 12\.3s\)\n/);
    expect(stdout).not.toContain("added 120 packages");
  });

  it("closer show --json carries the same quote", async () => {
    const { stdout } = await cli("show", RUN_ID, "--runs-dir", runsDir, "--json");
    const view = JSON.parse(stdout);
    expect(view.timeline[0].checks[0].quoted).toEqual([
      "3:5  error  'x' is not defined  no-undef",
      "✖ 1 problem (1 error, 0 warnings)",
    ]);
    expect(view.setup).toEqual([
      expect.objectContaining({ command: "npm ci", exitCode: 0, durationMs: 12_300 }),
    ]);
  });

  it("closer report shows the lint error in sight and npm's words only in the collapsed output", async () => {
    const file = join(runsDir, "report.html");
    const { code, stderr } = await cli("report", RUN_ID, "--runs-dir", runsDir, "-o", file);
    expect(code, stderr).toBe(0);
    const page = await readFile(file, "utf8");
    const check = page.slice(page.indexOf('data-check="lint"'));
    const quoted = /<pre class="quoted">([^<]*)<\/pre>/.exec(check)?.[1] ?? "";
    expect(quoted).toContain("is not defined  no-undef");
    expect(quoted).toContain("1 problem (1 error, 0 warnings)");
    expect(quoted).not.toContain("proj@1.0.0");
    expect(quoted).not.toContain("npm error");
    // All it printed is kept, collapsed, after the quote.
    expect(check.indexOf("proj@1.0.0")).toBeGreaterThan(check.indexOf('<pre class="quoted">'));
    expect(page).toMatch(/<h2 id="setup">Setup<\/h2>.*npm ci.*exit 0/s);
  });
});
