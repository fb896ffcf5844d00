import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BOUNDARY_MESSAGE, boundaryDenial, isForbiddenCommand } from "./boundary.js";

const ENTERPRISE_API = "https://ghe.example.com/api/v3";

describe("isForbiddenCommand", () => {
  it.each([
    "gh issue close 5",
    "gh issue close 5 --comment done",
    "gh issue edit 5 --add-label done",
    "gh pr merge 12 --squash",
    "gh api repos/acme/app/issues/5 -X PATCH -f state=closed",
    "gh api graphql -f query=x",
    "/usr/bin/gh issue close 5",
    "GH_TOKEN=x gh issue close 5",
    "sudo -E gh issue close 5",
    "env gh pr merge 3",
    "npm test && gh issue close 5",
    "git push; gh pr merge 3",
    "echo ok | gh api repos/acme/app",
    "echo $(gh issue close 5)",
    "bash -c 'gh issue close 5'",
    'sh -c "cd repo && gh pr merge 1"',
    '"gh" issue close 5',
    "gh issue close -R acme/app 5",
    "curl https://api.github.com/repos/acme/app/issues/5",
    'curl -X PATCH -d \'{"state":"closed"}\' https://api.github.com/repos/acme/app/issues/5',
    "curl -s api.github.com/user",
    "wget -qO- https://api.github.com/repos/acme/app",
    'curl -H "Authorization: token $GITHUB_TOKEN" "$GITHUB_API_URL/repos/acme/app/issues/5"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, not a template
    "curl ${GITHUB_API_URL}/repos/acme/app",
  ])("forbids %s", (command) => {
    expect(isForbiddenCommand(command)).toBe(true);
  });

  it.each([
    "gh issue view 5",
    "gh issue list --label bug",
    "gh pr view 12",
    "gh pr create --fill",
    "gh pr checks 12",
    "git commit -m 'gh issue close 5 later'",
    "echo gh api",
    "grep -r 'gh issue close' docs",
    "curl https://example.com/api.github.com.txt",
    "curl https://registry.npmjs.org/closer",
    "wget https://github.com/acme/app/archive/main.zip",
    "npm test",
    "",
  ])("allows %s", (command) => {
    expect(isForbiddenCommand(command)).toBe(false);
  });

  it("forbids the GitHub Enterprise API named by GITHUB_API_URL", () => {
    expect(isForbiddenCommand(`curl ${ENTERPRISE_API}/repos/acme/app`, ENTERPRISE_API)).toBe(true);
    expect(isForbiddenCommand("curl https://ghe.example.com/acme/app", ENTERPRISE_API)).toBe(false);
    expect(isForbiddenCommand(`curl ${ENTERPRISE_API}/repos/acme/app`)).toBe(false);
  });

  it("never throws, whatever the command", () => {
    fc.assert(
      fc.property(fc.string(), (command) => {
        expect(typeof isForbiddenCommand(command)).toBe("boolean");
      }),
    );
  });

  it("still forbids a forbidden command wherever it sits in a chain", () => {
    const harmless = fc.constantFrom("npm test", "git status", "echo done", "ls -la");
    const separator = fc.constantFrom(" && ", " || ", "; ", " | ", "\n");
    fc.assert(
      fc.property(harmless, separator, harmless, (before, glue, after) => {
        const command = `${before}${glue}gh issue close 7${glue}${after}`;
        expect(isForbiddenCommand(command)).toBe(true);
      }),
    );
  });
});

describe("boundaryDenial", () => {
  it("denies forbidden shell commands with the message for the model", () => {
    expect(boundaryDenial("Bash", { command: "gh issue close 5" })).toBe(BOUNDARY_MESSAGE);
    expect(BOUNDARY_MESSAGE).toContain("closer performs GitHub side effects after verification");
  });

  it("denies fetching the GitHub API", () => {
    const input = { url: "https://api.github.com/repos/acme/app/issues/5", prompt: "read" };
    expect(boundaryDenial("WebFetch", input)).toBe(BOUNDARY_MESSAGE);
    expect(boundaryDenial("WebFetch", { url: `${ENTERPRISE_API}/user` }, ENTERPRISE_API)).toBe(
      BOUNDARY_MESSAGE,
    );
  });

  it("allows everything else", () => {
    expect(boundaryDenial("Bash", { command: "npm test" })).toBeUndefined();
    expect(boundaryDenial("WebFetch", { url: "https://docs.github.com/en/rest" })).toBeUndefined();
    expect(
      boundaryDenial("Write", { file_path: "gh-issue-close.md", content: "gh api" }),
    ).toBeUndefined();
    expect(boundaryDenial("Read", undefined)).toBeUndefined();
  });
});
