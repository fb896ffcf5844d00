import { describe, expect, it } from "vitest";
import { makeRedactor, stringifyRedacted } from "./secret-redactor.js";

describe("makeRedactor", () => {
  it("docs/record.md#secrets redacts the values of secret environment variables, and only those", () => {
    const redact = makeRedactor({
      GITHUB_TOKEN: "tok-0123456789",
      MY_SERVICE_PASSWORD: "hunter2hunter2",
      HOME: "/home/someone",
      DEBUG: "1",
    });
    expect(redact("tok-0123456789 and hunter2hunter2 in /home/someone, DEBUG=1")).toBe(
      "[redacted] and [redacted] in /home/someone, DEBUG=1",
    );
  });

  it.each([
    ["a GitHub token", `ghp_${"a1B2".repeat(9)}`],
    ["a fine-grained GitHub token", `github_pat_${"A1b2_".repeat(12)}`],
    ["an Anthropic key", `sk-ant-api03-${"x9Y_".repeat(10)}`],
    ["an OpenAI key", `sk-proj-${"Q7w-".repeat(10)}`],
    ["an AWS access key id", "AKIAIOSFODNN7EXAMPLE"],
    ["a Slack token", "xoxb-123456789012-abcdefABCDEF"],
  ])(
    "docs/record.md#secrets redacts %s found in text, without an environment variable naming it",
    (_kind, token) => {
      const redact = makeRedactor({});
      expect(redact(`cat .env\nTOKEN=${token}\n`)).toBe("cat .env\nTOKEN=[redacted]\n");
    },
  );

  it("leaves text that merely resembles a token prefix alone", () => {
    const redact = makeRedactor({});
    const text = "risk-assessment, task-list, ghp_short, the AKIA prefix, sk-1234";
    expect(redact(text)).toBe(text);
  });

  it("redacts inside JSON before escaping, so an escaped secret can't slip through", () => {
    const secret = 'quote"and\\slash';
    const json = stringifyRedacted({ message: `x ${secret} y` }, makeRedactor({ API_KEY: secret }));
    expect(JSON.parse(json)).toEqual({ message: "x [redacted] y" });
  });
});
