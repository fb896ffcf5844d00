import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeBackendContract } from "../../../test/backend-contract.js";
import { makeFakeCliContractHarness } from "../../../test/doubles/fake-cli/contract-harness.js";
import { makeRequest } from "../../../test/doubles/fake-cli/fake-cli-harness.js";
import { makeCommandBackend } from "./command.js";

/** A small agent: answers with its stdin and environment, and writes the decision file. */
const ECHO_AGENT = `
const fs = require("node:fs");
const prompt = fs.readFileSync(0, "utf8");
fs.writeFileSync(process.env.CLOSER_DECISION_FILE, JSON.stringify({ decision: "complete", check_id: process.env.CLOSER_CHECK_ID }));
process.stderr.write("COMPLETE\\n");
process.stdout.write(JSON.stringify({ prompt, checkId: process.env.CLOSER_CHECK_ID, schema: process.env.CLOSER_OUTPUT_SCHEMA, session: process.env.CLOSER_SESSION_ID, model: process.env.CLOSER_MODEL }));
`;

const FAILING_AGENT = `
process.stdout.write("partial answer");
process.stderr.write("something broke\\n");
process.exit(3);
`;

describeBackendContract(
  "command",
  () => makeFakeCliContractHarness("agent-command", (command) => makeCommandBackend({ command })),
  { sessions: false, structuredOutput: false },
);

describe("command backend", () => {
  let root: string;
  let cwd: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "closer-command-"));
    cwd = root;
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("gives the prompt on stdin and the check id and decision file in the environment", async () => {
    const decisionFile = path.join(cwd, ".closer-decision.json");
    const backend = makeCommandBackend({ command: ["node", "-e", ECHO_AGENT] });
    const response = await backend.query(
      makeRequest(
        { cwd, env: {} },
        {
          prompt: "Do it.",
          schema: { type: "object" },
          sessionId: "s-1",
          model: "local",
          env: { CLOSER_CHECK_ID: "check-7", CLOSER_DECISION_FILE: decisionFile },
        },
      ),
    );
    expect(response.error).toBeUndefined();
    const answered = JSON.parse(response.text);
    expect(answered).toEqual({
      prompt: "Do it.",
      checkId: "check-7",
      schema: JSON.stringify({ type: "object" }),
      session: "s-1",
      model: "local",
    });
    expect(response.structuredOutput).toBeUndefined();
    expect(JSON.parse(await readFile(decisionFile, "utf8"))).toEqual({
      decision: "complete",
      check_id: "check-7",
    });
  });

  it("never takes stderr as the answer", async () => {
    const backend = makeCommandBackend({ command: ["node", "-e", ECHO_AGENT] });
    const response = await backend.query(
      makeRequest({ cwd, env: { CLOSER_DECISION_FILE: path.join(cwd, "d.json") } }),
    );
    expect(response.text).not.toContain("COMPLETE");
  });

  it("reports a non-zero exit as a crash with the end of stderr", async () => {
    const backend = makeCommandBackend({ command: ["node", "-e", FAILING_AGENT] });
    const response = await backend.query(makeRequest({ cwd, env: {} }));
    expect(response.error?.kind).toBe("crash");
    expect(response.error?.retryable).toBe(false);
    expect(response.error?.message).toContain("something broke");
    expect(response.error?.message).toContain("3");
  });

  it("reports a missing executable as a configuration problem", async () => {
    const backend = makeCommandBackend({ command: [path.join(root, "missing-agent")] });
    const response = await backend.query(makeRequest({ cwd, env: {} }));
    expect(response.error?.kind).toBe("config");
  });
});
