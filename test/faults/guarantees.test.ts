import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain script of the repository, without types
import { makeTable, readFaults } from "../../scripts/guarantees.mjs";

describe("README's table of guarantees", () => {
  it("is the fault suite's table: npm run guarantees writes it", () => {
    const readme = readFileSync("README.md", "utf8");
    const upToDate = readme.includes(makeTable(readFaults()));
    expect(upToDate, "README's table is out of date: run npm run guarantees").toBe(true);
  });
});
