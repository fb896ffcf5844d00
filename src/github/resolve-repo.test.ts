import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { parseRepoUrl, resolveRepo } from "./resolve-repo.js";

describe("parseRepoUrl", () => {
  it.each([
    ["https://github.com/acme/widgets.git", "acme", "widgets"],
    ["https://github.com/acme/widgets", "acme", "widgets"],
    ["https://x-access-token:secret@github.com/acme/widgets.git", "acme", "widgets"],
    ["https://ghe.example.com/acme/widgets/", "acme", "widgets"],
    ["git@github.com:acme/widgets.git", "acme", "widgets"],
    ["github.com:acme/my.repo", "acme", "my.repo"],
    ["ssh://git@github.com/acme/widgets.git", "acme", "widgets"],
    ["ssh://git@ghe.example.com:2222/acme/widgets", "acme", "widgets"],
  ])("reads %s", (url, owner, repo) => {
    expect(parseRepoUrl(url)).toEqual({ owner, repo });
  });

  it.each(["", "not a url", "https://github.com/", "/local/path"])("rejects %j", (url) => {
    expect(parseRepoUrl(url)).toBeUndefined();
  });
});

describe("resolveRepo", () => {
  let repo: FixtureRepo;
  beforeEach(async () => {
    repo = await makeFixtureRepo();
  });
  afterEach(async () => {
    await repo.cleanup();
  });

  it("reads the origin remote", async () => {
    await repo.git("remote", "add", "origin", "git@github.com:acme/widgets.git");
    expect(await resolveRepo(repo.dir)).toEqual({ owner: "acme", repo: "widgets" });
  });

  it("prefers an override and checks its form", async () => {
    expect(await resolveRepo(repo.dir, { override: "octo/cat" })).toEqual({
      owner: "octo",
      repo: "cat",
    });
    await expect(resolveRepo(repo.dir, { override: "nope" })).rejects.toMatchObject({
      code: "usage_error",
    });
  });

  it("says how to fix a missing remote, and never echoes credentials", async () => {
    await expect(resolveRepo(repo.dir)).rejects.toMatchObject({ code: "github_error" });
    await repo.git("remote", "add", "origin", "https://user:s3cret@example.com/");
    const error = await resolveRepo(repo.dir).catch((caught) => caught);
    expect(error.message).not.toContain("s3cret");
    expect(error.fields.fix).toContain("owner/repo");
  });
});
