import { createHash } from "node:crypto";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { hashDefinitionFiles, readDefinitionFiles } from "./definition-files.js";

let root: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "closer-definition-")));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeFolder(folder: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, folder);
  await mkdir(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const AGENT = {
  "agent.json": '{"name": "a"}\n',
  "steps_registry.json": '{"c1": "steps"}\n',
  "prompts/steps/initial/task/f_default.md": "# {{task.title}}\n",
  "validators/check.mjs": "export default () => ({ valid: false });\n",
};

describe("readDefinitionFiles", () => {
  it("reads every file of the folder, sorted by path, with a sha256 over paths, lengths and contents", async () => {
    const dir = await writeFolder("agent", AGENT);
    const read = await readDefinitionFiles(dir);

    expect(read.files.map((file) => file.path)).toEqual([
      "agent.json",
      "prompts/steps/initial/task/f_default.md",
      "steps_registry.json",
      "validators/check.mjs",
    ]);
    const expected = createHash("sha256");
    for (const file of read.files) {
      expected.update(`${file.path}\0${file.content.length}\0`).update(file.content);
    }
    expect(read.hash).toBe(expected.digest("hex"));
    expect(read.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(read.skipped).toEqual([]);
  });

  it("gives two folders with the same files the same hash, and any change another", async () => {
    const first = await readDefinitionFiles(await writeFolder("one", AGENT));
    const reordered = Object.fromEntries(Object.entries(AGENT).reverse());
    const second = await readDefinitionFiles(await writeFolder("two", reordered));
    expect(second.hash).toBe(first.hash);

    const changed = await readDefinitionFiles(
      await writeFolder("three", {
        ...AGENT,
        "validators/check.mjs": "export default () => ({ valid: true });\n",
      }),
    );
    const { "validators/check.mjs": check, ...rest } = AGENT;
    const renamed = await readDefinitionFiles(
      await writeFolder("four", { ...rest, "validators/other.mjs": check }),
    );
    const added = await readDefinitionFiles(
      await writeFolder("five", { ...AGENT, "notes.txt": "" }),
    );
    const hashes = new Set([first.hash, changed.hash, renamed.hash, added.hash]);
    expect(hashes.size).toBe(4);
  });

  it("keeps the boundary between a file's path and its content", () => {
    const left = hashDefinitionFiles([{ path: "a", content: Buffer.from("bc") }]);
    const right = hashDefinitionFiles([{ path: "ab", content: Buffer.from("c") }]);
    expect(left).not.toBe(right);
  });

  it("follows symlinks that stay inside the folder and leaves out, by name, those that lead out", async () => {
    const outside = await writeFolder("elsewhere", { "secret.js": "export {};\n" });
    const dir = await writeFolder("agent", AGENT);
    await symlink(join(dir, "validators"), join(dir, "linked-validators"));
    await symlink(join(outside, "secret.js"), join(dir, "secret.js"));
    await symlink(outside, join(dir, "lib"));
    await symlink(dir, join(dir, "prompts", "loop"));

    const read = await readDefinitionFiles(dir);

    expect(read.files.map((file) => file.path)).toContain("linked-validators/check.mjs");
    expect(read.skipped).toEqual(["lib", "prompts/loop", "secret.js"]);
    expect(read.files.some((file) => file.path.startsWith("lib"))).toBe(false);
  });

  it("refuses a folder larger than the limit with a configuration error", async () => {
    const dir = await writeFolder("agent", { ...AGENT, "data.bin": "x".repeat(2000) });
    const error = await readDefinitionFiles(dir, { maxBytes: 1000 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CloserError);
    expect((error as CloserError).code).toBe("config_error");
    expect((error as CloserError).message).toContain("holds more than 1000 bytes");
  });

  it("says which folder is missing", async () => {
    const error = await readDefinitionFiles(join(root, "nowhere")).catch(
      (caught: unknown) => caught,
    );
    expect((error as CloserError).code).toBe("not_found");
  });
});
