import { describe, expect, it } from "vitest";
import { libraryHostEnvironment } from "./library-host.js";

describe("libraryHostEnvironment", () => {
  it("gives the sandbox library's process the policy's environment: no GitHub token, no model key", () => {
    const env = libraryHostEnvironment({
      PATH: "/usr/bin",
      HOME: "/home/dev",
      HTTPS_PROXY: "http://proxy:3128",
      SRT_DEBUG: "1",
      CLAUDE_TMPDIR: "/var/tmp",
      GITHUB_TOKEN: "ghp_secret",
      GH_TOKEN: "gho_secret",
      ANTHROPIC_API_KEY: "sk-ant-secret",
      OPENAI_API_KEY: "sk-secret",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: "Authorization: Bearer secret",
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/dev",
      HTTPS_PROXY: "http://proxy:3128",
      SRT_DEBUG: "1",
      CLAUDE_TMPDIR: "/var/tmp",
    });
  });
});
