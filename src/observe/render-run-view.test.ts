import { describe, expect, it } from "vitest";
import { makeTwoIterationRunView } from "../../test/observe/support/run-views.js";
import { renderRunView } from "./render-run-view.js";

describe("closer show's tool calls (docs/observe.md#tool-calls)", () => {
  it("lists each iteration's calls with a command's exit, and cuts a long list with a pointer to --json", () => {
    const lines = renderRunView(makeTwoIterationRunView()).split("\n");
    const first = lines.indexOf("  tools     3 calls · 1 failed");
    expect(first).toBeGreaterThan(-1);
    expect(lines[first + 1]).toBe("            read src/add.js");
    expect(lines[first + 3]).toBe("            run npm test · exit 1");
    const second = lines.indexOf("  tools     25 calls");
    expect(lines.slice(second + 1, second + 14)).toEqual([
      ...Array.from({ length: 12 }, (_, index) => `            read src/file-${index}.js`),
      "            … and 13 more (closer show --json lists them)",
    ]);
  });
});
