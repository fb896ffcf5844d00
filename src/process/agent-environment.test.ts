import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  GITHUB_TOKEN_VARIABLES,
  makeAgentEnvironment,
  pathWithFirst,
} from "./agent-environment.js";

describe("makeAgentEnvironment", () => {
  it("is closer's environment plus the additions, without any GitHub token", () => {
    const base = {
      HOME: "/home/user",
      GITHUB_TOKEN: "ghp_closer",
      GH_TOKEN: "gho_user",
      GITHUB_ENTERPRISE_TOKEN: "ghe",
      GH_ENTERPRISE_TOKEN: "ghe2",
      GITHUB_API_URL: "https://ghe.example/api/v3",
      UNSET: undefined,
    };
    const env = makeAgentEnvironment(base, { CLOSER_RUN_ID: "r1", GH_TOKEN: "added" });
    expect(env).toEqual({
      HOME: "/home/user",
      GITHUB_API_URL: "https://ghe.example/api/v3",
      CLOSER_RUN_ID: "r1",
    });
    for (const name of GITHUB_TOKEN_VARIABLES) expect(env).not.toHaveProperty(name);
  });
});

describe("pathWithFirst", () => {
  it("puts the folder first on the PATH", () => {
    expect(pathWithFirst("/tmp/shim", "/usr/bin").split(path.delimiter)).toEqual([
      "/tmp/shim",
      "/usr/bin",
    ]);
    expect(pathWithFirst("/tmp/shim", undefined)).toBe("/tmp/shim");
  });
});
