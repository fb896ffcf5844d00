import { describe, expect, it } from "vitest";
import {
  GITHUB_TOKEN_VARIABLES,
  makeChildEnvironment,
  makeChildEnvironments,
  NO_GRANT,
  passedNames,
} from "./child-environment.js";

const CLOSER_ENV = {
  PATH: "/usr/bin",
  HOME: "/home/someone",
  LC_ALL: "C.UTF-8",
  XDG_CONFIG_HOME: "/home/someone/.config",
  HTTPS_PROXY: "http://proxy:3128",
  GITHUB_TOKEN: "ghp_closer",
  GH_TOKEN: "gho_user",
  GITHUB_ENTERPRISE_TOKEN: "ghe",
  GH_ENTERPRISE_TOKEN: "ghe2",
  ANTHROPIC_API_KEY: "sk-ant-key",
  OPENAI_API_KEY: "sk-openai",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  NPM_TOKEN: "npm-token",
  NODE_OPTIONS: "--require ./hook.js",
  DATABASE_URL: "postgres://db",
  PLAYWRIGHT_BROWSERS_PATH: "/browsers",
  UNSET: undefined,
};

describe("docs/backends.md#environment: one policy for every process that runs the model's code", () => {
  it("gives the validators the allowlist alone: no credential of closer's, no model key", () => {
    expect(makeChildEnvironment("validators", CLOSER_ENV)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/someone",
      LC_ALL: "C.UTF-8",
      XDG_CONFIG_HOME: "/home/someone/.config",
      HTTPS_PROXY: "http://proxy:3128",
    });
  });

  it("passes git's identity to every kind: CI systems set it instead of a git config", () => {
    const identity = {
      GIT_AUTHOR_NAME: "CI Bot",
      GIT_AUTHOR_EMAIL: "ci@example.com",
      GIT_COMMITTER_NAME: "CI Bot",
      GIT_COMMITTER_EMAIL: "ci@example.com",
      EMAIL: "ci@example.com",
    };
    const environments = makeChildEnvironments({ ...CLOSER_ENV, ...identity });
    expect(environments.backend).toMatchObject(identity);
    expect(environments.validators).toMatchObject(identity);
  });

  it("gives the backend its model credentials too, never the GitHub tokens", () => {
    const env = makeChildEnvironment("backend", CLOSER_ENV);
    expect(env).toMatchObject({ ANTHROPIC_API_KEY: "sk-ant-key", OPENAI_API_KEY: "sk-openai" });
    for (const name of GITHUB_TOKEN_VARIABLES) expect(env).not.toHaveProperty(name);
    expect(env).not.toHaveProperty("AWS_SECRET_ACCESS_KEY");
    expect(env).not.toHaveProperty("NPM_TOKEN");
  });

  it("passes what the agent names, per kind, a trailing * matching a prefix", () => {
    const environments = makeChildEnvironments(CLOSER_ENV, {
      ...NO_GRANT,
      pass: ["DATABASE_URL"],
      backend: ["AWS_*"],
      validators: ["PLAYWRIGHT_*"],
    });
    expect(environments.backend).toMatchObject({
      DATABASE_URL: "postgres://db",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
    });
    expect(environments.backend).not.toHaveProperty("PLAYWRIGHT_BROWSERS_PATH");
    expect(environments.validators).toMatchObject({
      DATABASE_URL: "postgres://db",
      PLAYWRIGHT_BROWSERS_PATH: "/browsers",
    });
    expect(environments.validators).not.toHaveProperty("AWS_SECRET_ACCESS_KEY");
  });

  it("never passes a GitHub token by name or prefix; passGithubToken gives it to the backend only", () => {
    const grant = { ...NO_GRANT, pass: ["GITHUB_*", "GH_TOKEN"], validators: ["*"] };
    const closed = makeChildEnvironments(CLOSER_ENV, grant);
    for (const name of GITHUB_TOKEN_VARIABLES) {
      expect(closed.backend).not.toHaveProperty(name);
      expect(closed.validators).not.toHaveProperty(name);
    }
    const opened = makeChildEnvironments(CLOSER_ENV, { ...grant, passGithubToken: true });
    expect(opened.backend).toMatchObject({ GITHUB_TOKEN: "ghp_closer", GH_TOKEN: "gho_user" });
    expect(opened.validators).not.toHaveProperty("GITHUB_TOKEN");
  });

  it("records names, never values", () => {
    const names = passedNames(makeChildEnvironments(CLOSER_ENV));
    expect(names.validators).toEqual(["HOME", "HTTPS_PROXY", "LC_ALL", "PATH", "XDG_CONFIG_HOME"]);
    expect(JSON.stringify(names)).not.toContain("sk-ant-key");
  });
});
