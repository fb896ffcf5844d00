import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CustomValidatorDefinition } from "../ports/registry.js";
import type { CheckContext } from "../ports/validator.js";
import { runValidator } from "./run-validator.js";

let tree: string;
let agentDir: string;
let context: CheckContext;

const MODULES: Readonly<Record<string, string>> = {
  "echo.mjs": [
    "export default ({ cwd, agentDir, checkId, env, signal }) => ({",
    "  valid: true,",
    "  params: {",
    "    cwd, agentDir, checkId, envCheckId: env.CLOSER_CHECK_ID, mark: env.CLOSER_TEST_MARK,",
    "    hasSignal: signal instanceof AbortSignal, processCwd: process.cwd(),",
    "    processCheckId: process.env.CLOSER_CHECK_ID, hasPath: typeof process.env.PATH === 'string',",
    "  },",
    "});",
  ].join("\n"),
  "invalid.mjs":
    "export async function validate() { await new Promise((r) => setTimeout(r, 5)); return { valid: false, params: { missing: ['README.md'] } }; }",
  "throws.mjs": "export default () => { throw new Error('cannot reach the tracker'); };",
  "syntax-error.mjs": "export default () => { return { valid: true ;",
  "no-function.mjs": "export const validate = 42;",
  "bad-result.mjs": "export default () => 'yes';",
  "bigint.mjs": "export default () => ({ valid: true, params: { count: 1n } });",
  "exits.mjs": "export default () => { process.exit(0); };",
  "exits-on-load.mjs": "process.exit(0);\nexport default () => ({ valid: true });",
  "crashes.mjs": "export default () => { process.kill(process.pid, 'SIGKILL'); };",
  "spins.mjs": "export default () => { while (true) {} };",
  "slow.mjs":
    "export default ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ valid: true })));",
  "common.cjs": "module.exports = () => ({ valid: true });",
  "noisy.mjs": [
    "import { writeSync } from 'node:fs';",
    "const forged = JSON.stringify({ kind: 'returned', value: { valid: true } });",
    "export default () => {",
    "  console.log(forged);",
    "  console.error('a warning');",
    "  writeSync(3, forged + '\\n');",
    "  return { valid: false, params: { said: 'no' } };",
    "};",
  ].join("\n"),
  "forges.mjs": [
    "import { writeSync } from 'node:fs';",
    "export default () => {",
    "  writeSync(3, JSON.stringify({ nonce: 'guess', kind: 'returned', value: { valid: true } }) + '\\n');",
    "  process.exit(0);",
    "};",
  ].join("\n"),
  "leaves-timer.mjs":
    "export default () => { setInterval(() => {}, 1000); return { valid: true }; };",
};

beforeEach(async () => {
  tree = await realpath(await mkdtemp(join(tmpdir(), "closer-custom-tree-")));
  agentDir = await realpath(await mkdtemp(join(tmpdir(), "closer-custom-agent-")));
  for (const [name, source] of Object.entries(MODULES)) {
    await writeFile(join(agentDir, name), source);
  }
  context = {
    cwd: tree,
    agentDir,
    checkId: "check-123",
    env: { CLOSER_TEST_MARK: "marked" },
    signal: new AbortController().signal,
  };
});
afterEach(async () => {
  await rm(tree, { recursive: true, force: true });
  await rm(agentDir, { recursive: true, force: true });
});

function customValidator(module: string, timeoutMs = 10_000): CustomValidatorDefinition {
  return {
    type: "custom",
    name: "review",
    failurePattern: "review-failed",
    extractParams: {},
    reruns: 0,
    cache: true,
    module: join(agentDir, module),
    timeoutMs,
  };
}

describe("custom validator", () => {
  it("runs the module in the tree it is given and keeps its params; no CLOSER_CHECK_ID tells it it is closer's", async () => {
    const outcome = await runValidator(customValidator("echo.mjs"), context);
    expect(outcome).toMatchObject({ validator: "review", valid: true });
    expect(outcome.params).toEqual({
      cwd: tree,
      agentDir,
      checkId: "check-123",
      envCheckId: undefined,
      mark: "marked",
      hasSignal: true,
      processCwd: tree,
      processCheckId: undefined,
      hasPath: true,
    });
  });

  it("fails with the module's params under the failure pattern", async () => {
    const outcome = await runValidator(customValidator("invalid.mjs"), context);
    expect(outcome).toMatchObject({ valid: false, pattern: "review-failed" });
    expect(outcome.params).toEqual({ missing: ["README.md"] });
    expect(outcome.configError).toBeUndefined();
  });

  it("loads a CommonJS module's exported function", async () => {
    expect((await runValidator(customValidator("common.cjs"), context)).valid).toBe(true);
  });

  it.each([
    ["throws.mjs", "threw: cannot reach the tracker"],
    ["syntax-error.mjs", "cannot load"],
    ["no-function.mjs", "exports no function"],
    ["bad-result.mjs", 'returned "yes"'],
    ["bigint.mjs", "not JSON"],
    ["missing.mjs", "cannot load"],
  ])(
    "reports %s as a configuration error naming the module and the validator",
    async (module, message) => {
      const outcome = await runValidator(customValidator(module), context);
      expect(outcome.valid).toBe(false);
      expect(outcome.configError).toContain(message);
      expect(outcome.configError).toContain(join(agentDir, module));
      expect(outcome.configError).toContain('validator "review"');
    },
  );

  it.each([
    ["exits.mjs", "exit 0"],
    ["exits-on-load.mjs", "exit 0"],
    ["crashes.mjs", "signal SIGKILL"],
  ])(
    "fails the check when %s ends its process without a result, and closer runs on",
    async (module, end) => {
      const outcome = await runValidator(customValidator(module), context);
      expect(outcome).toMatchObject({ valid: false, pattern: "review-failed" });
      expect(outcome.configError).toBeUndefined();
      expect(outcome.params.reason).toContain(`ended (${end}) before returning a result`);
      expect(process.exitCode).toBeUndefined();
    },
  );

  it("kills a module that never returns at the timeout", async () => {
    const outcome = await runValidator(customValidator("spins.mjs", 300), context);
    expect(outcome).toMatchObject({ valid: false, timedOut: true, pattern: "review-failed" });
    expect(outcome.configError).toBeUndefined();
    expect(outcome.durationMs).toBeLessThan(8_000);
  });

  it("aborts the module's signal at the timeout; what it returns then does not count", async () => {
    const outcome = await runValidator(customValidator("slow.mjs", 300), context);
    expect(outcome).toMatchObject({ valid: false, timedOut: true, pattern: "review-failed" });
  });

  it("does not pass a check whose run was aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await runValidator(customValidator("echo.mjs"), {
      ...context,
      signal: controller.signal,
    });
    expect(outcome.valid).toBe(false);
    expect(outcome.configError).toBeUndefined();
  });

  it("keeps the module's output apart from its result", async () => {
    const outcome = await runValidator(customValidator("noisy.mjs"), context);
    expect(outcome).toMatchObject({ valid: false, params: { said: "no" } });
    expect(outcome.stdout).toContain('"kind":"returned"');
    expect(outcome.stderr).toBe("a warning\n");
  });

  it("does not take a report without the run's nonce", async () => {
    const outcome = await runValidator(customValidator("forges.mjs"), context);
    expect(outcome.valid).toBe(false);
    expect(outcome.params.reason).toContain("before returning a result");
  });

  it("does not wait for what the module left running", async () => {
    const outcome = await runValidator(customValidator("leaves-timer.mjs", 20_000), context);
    expect(outcome.valid).toBe(true);
    expect(outcome.durationMs).toBeLessThan(10_000);
  });
});
