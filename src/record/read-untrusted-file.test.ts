import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readUntrustedFile } from "./read-optional-file.js";

describe("readUntrustedFile (docs/completion.md#decision-file)", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "closer-untrusted-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads a regular file under the cap, and nothing when there is no file", async () => {
    const file = join(dir, "decision.json");
    expect(await readUntrustedFile(file)).toBeUndefined();
    await writeFile(file, '{"decision":"complete"}');
    expect(await readUntrustedFile(file)).toMatchObject({ text: '{"decision":"complete"}' });
  });

  it("never follows a symbolic link, even to a readable file", async () => {
    const target = join(dir, "target.txt");
    await writeFile(target, "secret");
    const link = join(dir, "decision.json");
    await symlink(target, link);
    expect(await readUntrustedFile(link)).toMatchObject({
      text: "",
      refused: { reason: "decision-file-not-regular" },
    });
  });

  it("refuses a folder and a FIFO without opening them", async () => {
    const folder = join(dir, "folder");
    await mkdir(folder);
    expect((await readUntrustedFile(folder))?.refused?.detail).toContain("a folder");
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    expect((await readUntrustedFile(fifo))?.refused?.detail).toContain("a FIFO");
  });

  it("refuses a file over the cap without reading it", async () => {
    const file = join(dir, "decision.json");
    await writeFile(file, "");
    await truncate(file, 700 * 1024 * 1024);
    expect(await readUntrustedFile(file)).toMatchObject({
      text: "",
      refused: { reason: "decision-file-too-large" },
    });
    await truncate(file, 11);
    expect((await readUntrustedFile(file, 10))?.refused?.reason).toBe("decision-file-too-large");
  });
});
