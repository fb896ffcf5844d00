import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeIssueAgent, PROJECT } from "../../../test/run/support/issue-repo.js";
import { type FixtureRepo, makeFixtureRepo } from "../../testing/index.js";
import { jobTemplateOf } from "./job-template.js";

let repo: FixtureRepo;

beforeAll(async () => {
  repo = await makeFixtureRepo({
    files: PROJECT,
    agents: [
      makeIssueAgent({
        name: "params",
        parameters: {
          issue: { type: "number", description: "the issue" },
          flavour: { type: "string", required: true, description: "the flavour" },
          count: { type: "number", default: 1, description: "how many" },
        },
      }),
      makeIssueAgent({ name: "plain" }),
    ],
  });
});
afterAll(async () => {
  await repo.cleanup();
});

describe("docs/queue.md#watch and #serve: the agent's own parameters travel in each job", () => {
  const options = [{ flags: "--label <label>", description: "the label" }];
  const template = (agent: string, parameterTokens: readonly string[]) =>
    jobTemplateOf(
      agent,
      { cwd: repo.dir, repo: "acme/widgets", cloneUrl: repo.dir, sandbox: "off" },
      { parameterTokens, options },
      "closer watch",
    );

  it("are read typed, as closer enqueue reads them, and carried as flags.args", async () => {
    const read = await template("params", ["--flavour", "strict", "--count=3"]);
    expect(read).toEqual({
      repository: { cloneUrl: repo.dir, owner: "acme", name: "widgets" },
      agent: "params",
      flags: { sandbox: "off", args: { flavour: "strict", count: 3 } },
      enqueue: {},
    });
  });

  it("none given: the flags carry no args", async () => {
    expect((await template("plain", [])).flags).toEqual({ sandbox: "off" });
  });

  it("a bad value, an unknown flag or a missing required one is a usage error at start", async () => {
    await expect(template("params", ["--flavour", "x", "--count", "many"])).rejects.toThrow(
      "--count needs a number",
    );
    await expect(template("params", ["--flavor", "x"])).rejects.toMatchObject({
      code: "usage_error",
      message: expect.stringContaining("unknown option '--flavor' (did you mean --flavour?)"),
    });
    await expect(template("params", [])).rejects.toThrow('agent "params" needs --flavour');
  });
});
