import { describe, expect, it } from "vitest";
import { parseParameterFlags } from "../../src/cli/run/parameter-flags.js";
import { isCloserError } from "../../src/errors.js";
import type { ParameterDefinition, ResolvedAgent } from "../../src/ports/agent.js";

function agentWith(parameters: Record<string, Omit<ParameterDefinition, "name" | "description">>) {
  return {
    name: "fixer",
    files: {
      agentJson: "/p/.agent/fixer/agent.json",
      registry: "/p/.agent/fixer/steps_registry.json",
    },
    parameters: Object.fromEntries(
      Object.entries(parameters).map(([name, definition]) => [
        name,
        { name, description: `the ${name}`, ...definition },
      ]),
    ),
  } as unknown as ResolvedAgent;
}

const AGENT = agentWith({
  flavour: { type: "string", required: false, flag: "--flavour" },
  count: { type: "number", required: false, flag: "--count" },
  dryRun: { type: "boolean", required: false, flag: "--dry-run" },
  issue: { type: "number", required: false, flag: "--issue" },
});

const CLOSER_OPTIONS = [{ flags: "--task <text>", description: "a written task" }];

function parse(
  tokens: string[],
  agent = AGENT,
  extra: { closerValues?: Record<string, string>; supplied?: string[] } = {},
) {
  return parseParameterFlags({
    tokens,
    agent,
    closerValues: extra.closerValues ?? {},
    supplied: extra.supplied ?? [],
    closerOptions: CLOSER_OPTIONS,
  });
}

function errorOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isCloserError(error)) return error;
    throw error;
  }
  throw new Error("expected an error");
}

describe("parseParameterFlags", () => {
  it("reads values typed as declared, in both spellings", () => {
    expect(parse(["--flavour", "mint", "--count=3", "--dry-run"])).toEqual({
      flavour: "mint",
      count: 3,
      dryRun: true,
    });
    expect(parse(["--no-dry-run", "--count", "-2"])).toEqual({ dryRun: false, count: -2 });
    expect(parse(["--dry-run=false"])).toEqual({ dryRun: false });
  });

  it("takes a parameter declared with one of closer's own flags from closer's value", () => {
    expect(parse([], AGENT, { closerValues: { "--issue": "12" } })).toEqual({ issue: 12 });
  });

  it("rejects a value of the wrong type, naming the parameter in agent.json", () => {
    const error = errorOf(() => parse(["--count", "many"]));
    expect(error.code).toBe("usage_error");
    expect(error.describe()).toContain("/p/.agent/fixer/agent.json at parameters.count");
    expect(error.describe()).toContain("--count needs a number");
  });

  it("rejects a flag without its value", () => {
    expect(errorOf(() => parse(["--flavour"])).message).toContain("--flavour needs a value");
  });

  it("rejects an unknown flag in one line, suggesting a known one and naming the agent's", () => {
    const error = errorOf(() => parse(["--flavor", "mint"]));
    expect(error.code).toBe("usage_error");
    expect(error.message).toBe("unknown option '--flavor' (did you mean --flavour?)");
    expect(error.describe()).toContain(
      'see closer run --help; agent "fixer" also takes --flavour <string>, --count <number>, --dry-run',
    );
    expect(errorOf(() => parse(["--tsak"])).message).toBe(
      "unknown option '--tsak' (did you mean --task?)",
    );
  });

  it("rejects a stray argument", () => {
    expect(errorOf(() => parse(["extra"])).message).toContain('unexpected argument "extra"');
  });

  it("enforces required parameters unless the run supplies them", () => {
    const agent = agentWith({
      flavour: { type: "string", required: true, flag: "--flavour" },
      issue: { type: "number", required: true, flag: "--issue" },
    });
    const error = errorOf(() => parse([], agent, { supplied: ["issue"] }));
    expect(error.message).toBe('agent "fixer" needs --flavour');
    expect(error.describe()).toContain("parameters.flavour");
    expect(parse(["--flavour", "x"], agent, { supplied: ["issue"] })).toEqual({ flavour: "x" });
  });

  it("accepts a required parameter that has a default without the flag", () => {
    const agent = agentWith({
      flavour: { type: "string", required: true, default: "plain", flag: "--flavour" },
    });
    expect(parse([], agent)).toEqual({});
  });
});
