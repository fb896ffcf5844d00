import { describe, expect, it } from "vitest";
import { scriptsRunBy } from "./package-scripts.js";

describe("scriptsRunBy", () => {
  it("always protects test and its hooks", () => {
    expect(scriptsRunBy([])).toEqual(["posttest", "pretest", "test"]);
  });

  it("adds the scripts a validator runs through npm, pnpm, yarn or bun", () => {
    const names = scriptsRunBy([
      "npm run lint -- --quiet",
      "pnpm run typecheck",
      "yarn build:check",
      "bun run e2e",
      "npm t",
    ]);
    for (const name of ["lint", "prelint", "typecheck", "build:check", "e2e", "test"]) {
      expect(names).toContain(name);
    }
  });

  it("does not take a package manager's own commands for scripts", () => {
    expect(scriptsRunBy(["yarn install && yarn add x"])).toEqual(["posttest", "pretest", "test"]);
  });
});
