import { describe, expect, it } from "vitest";
import { unsetVariables } from "./held-sandbox.js";

describe("unsetVariables", () => {
  it("reads every --unsetenv name from the wrap's bubblewrap line, once each", () => {
    const argv = [
      "/bin/bash",
      "-c",
      "bwrap --new-session --unsetenv GITHUB_TOKEN --ro-bind / / --unsetenv GH_TOKEN " +
        "--setenv HTTP_PROXY http://localhost:3128 --unsetenv GITHUB_TOKEN -- /bin/sh -c 'x'",
    ];
    expect(unsetVariables(argv)).toEqual(["GITHUB_TOKEN", "GH_TOKEN"]);
  });

  it("reads names whether bubblewrap's words are separate or one shell line", () => {
    expect(unsetVariables(["bwrap", "--unsetenv", "A_1", "--unsetenv", "_B"])).toEqual([
      "A_1",
      "_B",
    ]);
  });

  it("does not take a quoted or dashed word for a name", () => {
    expect(unsetVariables(["bwrap --unsetenv 'QUOTED' --unsetenv -x --unsetenv OK"])).toEqual([
      "OK",
    ]);
  });

  it("finds nothing in a wrap that unsets nothing", () => {
    expect(unsetVariables(["/bin/bash", "-c", "bwrap --setenv X 1 -- true"])).toEqual([]);
  });
});
