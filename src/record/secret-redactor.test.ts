import fc from "fast-check";
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

const JWT =
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const PEM = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF",
  "-----END RSA PRIVATE KEY-----",
].join("\n");

describe("makeRedactor: secrets known by their shape or their neighbours", () => {
  it.each([
    ["a short Anthropic key", "key sk-ant-abc123 here", "key [redacted] here"],
    ["a JWT after Bearer", `Authorization: Bearer ${JWT}`, "Authorization: Bearer [redacted]"],
    ["a bare JWT", `token=${JWT};`, "token=[redacted];"],
    [
      "an AWS secret access key after its name",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "aws_secret_access_key = [redacted]",
    ],
    [
      "an AWS secret access key in the environment's spelling",
      'AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
      'AWS_SECRET_ACCESS_KEY="[redacted]"',
    ],
    ["a private-key block", `key:\n${PEM}\nafter`, "key:\n[redacted]\nafter"],
    [
      "a private-key block cut before its end",
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
      "[redacted]",
    ],
    [
      "a password in a URL",
      "git clone https://someone:s3cr3t-pass@git.example.com/repo.git",
      "git clone https://someone:[redacted]@git.example.com/repo.git",
    ],
  ])("docs/record.md#secrets redacts %s", (_kind, text, expected) => {
    expect(makeRedactor({})(text)).toBe(expected);
  });

  it("keeps URLs without a password, and words that only look alike", () => {
    const text =
      "https://example.com:8080/path user@host mailto:someone@example.com a bearer of news -----BEGIN PUBLIC KEY-----";
    expect(makeRedactor({})(text)).toBe(text);
  });

  it("never lets a secret of any shape through, whatever text surrounds it", () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{16,40}$/);
    const secret = fc.oneof(
      word.map((body) => ({ secret: `sk-ant-${body}`, text: (s: string) => s })),
      word.map((body) => ({ secret: `eyJ${body}.eyJ${body}.${body}`, text: (s: string) => s })),
      word.map((body) => ({ secret: body, text: (s: string) => `Bearer ${s}` })),
      word.map((body) => ({ secret: body, text: (s: string) => `AWS_SECRET_ACCESS_KEY=${s}` })),
      word.map((body) => ({ secret: body, text: (s: string) => `https://me:${s}@host/x` })),
      word.map((body) => ({
        secret: body,
        text: (s: string) => `-----BEGIN PRIVATE KEY-----\n${s}\n-----END PRIVATE KEY-----`,
      })),
    );
    const around = fc.string({ maxLength: 20 }).map((text) => text.replace(/[A-Za-z0-9_]$/, " "));
    fc.assert(
      fc.property(around, secret, around, (before, shaped, after) => {
        const text = `${before} ${shaped.text(shaped.secret)} ${after}`;
        expect(makeRedactor({})(text)).not.toContain(shaped.secret);
      }),
    );
  });

  it("redacts a text seen before the same way, also after many others", () => {
    const redact = makeRedactor({ API_TOKEN: "s3cr3t-value" });
    const text = "curl -H 'Bearer abcdefgh12345' s3cr3t-value";
    const first = redact(text);
    for (let index = 0; index < 5_000; index += 1) redact(`text ${index} s3cr3t-value`);
    expect(redact(text)).toBe(first);
    expect(first).toBe("curl -H 'Bearer [redacted]' [redacted]");
    expect(redact(`${"x".repeat(5_000)} s3cr3t-value`)).not.toContain("s3cr3t");
    expect(redact(`${"x".repeat(5_000)} s3cr3t-value`)).not.toContain("s3cr3t");
  });
});
