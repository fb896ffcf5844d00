import { describe, expect, it } from "vitest";
import { detectFormatters, withPromptsIgnored } from "./detect-formatters.js";
import { formatJson } from "./json-text.js";

const reader = (files: Record<string, string>) => async (path: string) => files[path];

describe("detectFormatters", () => {
  it("reads biome.jsonc, comments and trailing commas included, its json formatter over the general one", async () => {
    const format = await detectFormatters(
      reader({
        "biome.jsonc":
          '{\n  // ours\n  "formatter": { "indentStyle": "space", "lineWidth": 120, },\n  "json": { "formatter": { "indentWidth": 4 } },\n}\n',
        ".prettierrc": "{}",
      }),
    );
    expect(format).toEqual({
      json: { indent: "    ", indentColumns: 4, lineWidth: 120, lineEnding: "\n" },
      jsonSource: "biome formats it (biome.jsonc)",
      prettier: true,
    });
  });

  it("takes biome's tabs when biome is a dependency without a configuration", async () => {
    const format = await detectFormatters(
      reader({ "package.json": '{"devDependencies":{"@biomejs/biome":"2"}}' }),
    );
    expect(format.json.indent).toBe("\t");
    expect(format.prettier).toBe(false);
  });

  it("falls back to prettier when biome's formatter is off, and reads package.json's prettier key", async () => {
    const format = await detectFormatters(
      reader({
        "biome.json": '{"formatter":{"enabled":false}}',
        "package.json": '{"prettier":{"useTabs":true,"printWidth":100,"endOfLine":"crlf"}}',
      }),
    );
    expect(format).toEqual({
      json: { indent: "\t", indentColumns: 2, lineWidth: 100, lineEnding: "\r\n" },
      jsonSource: "prettier formats it (package.json prettier)",
      prettier: true,
    });
  });

  it("keeps prettier's defaults for a configuration that is code, and finds nothing in a bare project", async () => {
    const code = await detectFormatters(reader({ "prettier.config.js": "export default {};" }));
    expect(code.jsonSource).toBe(
      "prettier formats it by default (prettier.config.js is code, not read)",
    );
    expect(code.json.indent).toBe("  ");
    expect(await detectFormatters(reader({}))).toEqual({
      json: { indent: "  ", indentColumns: 2, lineWidth: 80, lineEnding: "\n" },
      prettier: false,
    });
  });
});

describe("formatJson", () => {
  it("keeps an array of plain values on one line while it fits, and expands objects", () => {
    const style = { indent: "\t", indentColumns: 4, lineWidth: 30, lineEnding: "\n" } as const;
    expect(
      formatJson({ a: ["x", "y"], b: ["a-long-value", "another-one"], c: {}, d: [] }, style),
    ).toBe(
      '{\n\t"a": ["x", "y"],\n\t"b": [\n\t\t"a-long-value",\n\t\t"another-one"\n\t],\n\t"c": {},\n\t"d": []\n}\n',
    );
  });
});

describe("withPromptsIgnored", () => {
  it("adds the prompts of the agent once, and keeps a folder already ignored", () => {
    expect(withPromptsIgnored(undefined, "demo")).toBe(".agent/demo/prompts/\n");
    expect(withPromptsIgnored("dist/", "demo")).toBe("dist/\n.agent/demo/prompts/\n");
    expect(withPromptsIgnored("dist/\n.agent/demo/prompts/\n", "demo")).toBeUndefined();
    expect(withPromptsIgnored("/.agent/\n", "demo")).toBeUndefined();
  });
});
