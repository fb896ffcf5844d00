import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain script of the repository, without types
import { makeTable, readFaults } from "../../scripts/guarantees.mjs";

type Area = { readonly faults: readonly unknown[] };

describe("README's table of guarantees", () => {
  it("is the fault suite's table: npm run guarantees writes it", () => {
    const readme = readFileSync("README.md", "utf8");
    const upToDate = readme.includes(makeTable(readFaults()));
    expect(upToDate, "README's table is out of date: run npm run guarantees").toBe(true);
  });

  it("holds at least forty faults, each with what goes wrong and what closer does", () => {
    const areas = readFaults() as Area[];
    const faults = areas.flatMap((area) => area.faults) as { what: string; does: string }[];
    expect(faults.length).toBeGreaterThanOrEqual(40);
    for (const fault of faults) {
      expect(fault.what.length, fault.what).toBeGreaterThan(10);
      expect(fault.does.length, fault.what).toBeGreaterThan(10);
    }
  });
});
