/**
 * Agent folders written to a temp directory for the loader's tests. Call
 * `useTempCwd()` in a test file: each test then gets a fresh `cwd` (a live
 * binding) that `writeAgent`, `loadError` and `problemsOf` work in.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { CloserError, CloserErrorList } from "../../src/errors.js";
import {
  GIT_CLEAN_VALIDATOR,
  GIT_DIRTY_PATTERN,
  makeTestsPassValidator,
  TEST_FAILED_PATTERN,
} from "./test-agent.js";

export let cwd: string;

export function useTempCwd(): void {
  beforeEach(async () => {
    cwd = await mkdtemp(path.join(os.tmpdir(), "closer-load-agent-"));
  });
  afterEach(async () => {
    await rm(cwd, { recursive: true, force: true });
  });
}

export type Json = Record<string, unknown>;

export async function writeAgent(
  name: string,
  files: { agent?: Json | string; registry?: Json | string; registryName?: string },
): Promise<string> {
  const dir = path.join(cwd, ".agent", name);
  await mkdir(dir, { recursive: true });
  const text = (value: Json | string) =>
    typeof value === "string" ? value : JSON.stringify(value, null, 2);
  if (files.agent !== undefined) await writeFile(path.join(dir, "agent.json"), text(files.agent));
  if (files.registry !== undefined) {
    const registryFile = path.join(dir, files.registryName ?? "steps_registry.json");
    await mkdir(path.dirname(registryFile), { recursive: true });
    await writeFile(registryFile, text(files.registry));
  }
  return dir;
}

export const patterns = { "git-dirty": GIT_DIRTY_PATTERN, "test-failed": TEST_FAILED_PATTERN };
export const validators = {
  "git-clean": GIT_CLEAN_VALIDATOR,
  "tests-pass": makeTestsPassValidator("npm test"),
};
export const workSteps = {
  "initial.issue": {
    name: "Start",
    outputSchemaRef: { file: "issue.schema.json", schema: "initial.issue" },
    next: "continuation.issue",
    completionStep: "complete.issue",
  },
  "continuation.issue": {
    name: "Continue",
    outputSchemaRef: { file: "issue.schema.json", schema: "continuation.issue" },
    completionStep: "complete.issue",
  },
};
export const conditions = [{ validator: "git-clean" }, { validator: "tests-pass" }];

/** One spelling (docs/definition.md#completion-step-spellings): the completion step lives in `steps`, with `onFailure`. */
export const registryInSteps = {
  agentId: "iterator",
  entryStep: "initial.issue",
  completionPatterns: patterns,
  validators,
  steps: {
    ...workSteps,
    "complete.issue": {
      stepId: "complete.issue",
      name: "Issue Complete Step",
      c2: "retry",
      c3: "issue",
      completionConditions: conditions,
      onFailure: { action: "retry", maxAttempts: 2 },
    },
  },
};

/**
 * Another spelling (docs/definition.md#completion-step-spellings): `completionSteps` and
 * `onFail: {retry, maxAttempts}`; its `prompt` (docs/definition.md#seed-spellings) leaves the
 * retry folder at retry/<prompt.c3>.
 */
export const registryInCompletionSteps = {
  agentId: "iterator",
  entryStep: "initial.issue",
  completionPatterns: patterns,
  validators,
  steps: workSteps,
  completionSteps: {
    "complete.issue": {
      name: "Issue Complete Step",
      prompt: { c1: "steps", c2: "closure", c3: "issue" },
      completionConditions: conditions,
      onFail: { retry: true, maxAttempts: 2 },
    },
  },
};

export const iteratorAgent = {
  name: "iterator",
  description: "Works on an issue until it is verifiably done",
  parameters: { issue: { type: "number", required: true, description: "Issue number" } },
};

export async function loadError(name: string): Promise<CloserError> {
  try {
    await loadAgent(name, { cwd });
  } catch (error) {
    if (error instanceof CloserError) return error;
    throw error;
  }
  throw new Error("expected loadAgent to fail");
}

export async function problemsOf(name: string): Promise<readonly CloserError[]> {
  const error = await loadError(name);
  expect(error).toBeInstanceOf(CloserErrorList);
  return (error as CloserErrorList).problems;
}
