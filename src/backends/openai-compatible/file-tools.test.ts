import { mkdir, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { capOutput, editTool, readTool, type ToolContext, writeTool } from "./file-tools.js";

let root: string;
let outside: string;
let context: ToolContext;

beforeEach(async () => {
  const base = await mkdtemp(path.join(tmpdir(), "closer-file-tools-"));
  root = path.join(base, "tree");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "src", "add.js"), "a\nb\nc\nd\n");
  await writeFile(path.join(outside, "secret.txt"), "secret");
  await symlink(outside, path.join(root, "escape"));
  context = { root, protectedPaths: [path.join(root, "test"), path.join(root, "package.json")] };
});

describe("readTool", () => {
  it("reads numbered lines from an offset, up to a limit", async () => {
    expect(await readTool(context, { path: "src/add.js", offset: 2, limit: 2 })).toBe("2\tb\n3\tc");
  });

  it("refuses paths that leave the tree by .., absolute path or symlink", async () => {
    for (const given of [
      "../outside/secret.txt",
      path.join(outside, "secret.txt"),
      "escape/secret.txt",
    ]) {
      const result = await readTool(context, { path: given });
      expect(result).toMatch(/^error: .* is outside the working tree/);
      expect(result).not.toContain("secret\n");
    }
  });

  it("returns a missing file as an error result", async () => {
    expect(await readTool(context, { path: "nope.js" })).toMatch(/^error: .*ENOENT/);
  });
});

describe("writeTool", () => {
  it("writes a new file, making its folders", async () => {
    expect(await writeTool(context, { path: "lib/x/y.js", content: "hi" })).toContain("wrote");
    expect(await readFile(path.join(root, "lib/x/y.js"), "utf8")).toBe("hi");
  });

  it("refuses protected paths and paths through a symlink outside the tree", async () => {
    expect(await writeTool(context, { path: "test/add.test.js", content: "" })).toMatch(
      /^error: test\/add.test.js is protected/,
    );
    expect(await writeTool(context, { path: "escape/new.txt", content: "x" })).toMatch(
      /outside the working tree/,
    );
    await expect(readFile(path.join(outside, "new.txt"))).rejects.toThrow();
  });
});

describe("editTool", () => {
  it("replaces the one exact occurrence", async () => {
    expect(
      await editTool(context, { path: "src/add.js", old_string: "b\n", new_string: "B\n" }),
    ).toBe("edited src/add.js");
    expect(await readFile(path.join(root, "src/add.js"), "utf8")).toBe("a\nB\nc\nd\n");
  });

  it("leaves the file as it was when the match is missing or not unique", async () => {
    await writeFile(path.join(root, "src/twice.js"), "x x");
    expect(
      await editTool(context, { path: "src/twice.js", old_string: "x", new_string: "y" }),
    ).toMatch(/occurs 2 times/);
    expect(
      await editTool(context, { path: "src/twice.js", old_string: "z", new_string: "y" }),
    ).toMatch(/occurs 0 times/);
    expect(await readFile(path.join(root, "src/twice.js"), "utf8")).toBe("x x");
  });

  it("refuses to edit a protected file", async () => {
    await writeFile(path.join(root, "package.json"), "{}");
    expect(
      await editTool(context, { path: "package.json", old_string: "{}", new_string: "[]" }),
    ).toMatch(/is protected/);
    expect(await readFile(path.join(root, "package.json"), "utf8")).toBe("{}");
  });
});

describe("capOutput", () => {
  it("cuts long output and says how much was left out", () => {
    expect(capOutput("abcdef", 4)).toBe("abcd\n… (2 more characters left out)");
    expect(capOutput("abc", 4)).toBe("abc");
  });
});
