import {
  appendFile,
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readDefinitionFiles } from "../definition/definition-files.js";
import {
  definitionSnapshotDir,
  readRecordedDefinitionHash,
  writeDefinitionSnapshot,
} from "./definition-snapshot.js";

let root: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "closer-snapshot-")));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function makeAgentFolder(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe("writeDefinitionSnapshot", () => {
  it("copies every file into <run folder>/definition with its mode, hashing the same", async () => {
    const agentDir = await makeAgentFolder("agent", {
      "agent.json": "{}\n",
      "validators/check.mjs": "export default () => ({ valid: false });\n",
      "bin/agent.sh": "#!/bin/sh\n",
    });
    await chmod(join(agentDir, "bin/agent.sh"), 0o755);
    const runDir = join(root, "runs", "run-1");
    const files = await readDefinitionFiles(agentDir);

    const dir = await writeDefinitionSnapshot(runDir, files);

    expect(dir).toBe(definitionSnapshotDir(runDir));
    expect(dir).toBe(join(runDir, "definition"));
    expect((await readDefinitionFiles(dir)).hash).toBe(files.hash);
    expect(await readFile(join(dir, "validators/check.mjs"), "utf8")).toContain("valid: false");
    expect((await stat(join(dir, "bin/agent.sh"))).mode & 0o777).toBe(0o755);
  });

  it("replaces a snapshot already there as a whole, leaving nothing of the old one", async () => {
    const runDir = join(root, "runs", "run-1");
    const first = await makeAgentFolder("first", { "agent.json": "{}\n", "old.md": "old\n" });
    await writeDefinitionSnapshot(runDir, await readDefinitionFiles(first));
    const second = await makeAgentFolder("second", { "agent.json": '{"v": 2}\n' });
    const files = await readDefinitionFiles(second);

    const dir = await writeDefinitionSnapshot(runDir, files);

    expect((await readDefinitionFiles(dir)).files.map((file) => file.path)).toEqual(["agent.json"]);
    expect((await readDefinitionFiles(dir)).hash).toBe(files.hash);
    expect(await readdir(runDir)).toEqual(["definition"]);
  });
});

describe("readRecordedDefinitionHash", () => {
  it("gives the hash of the last definition event, past lines that are not JSON", async () => {
    const runDir = join(root, "run");
    await mkdir(runDir, { recursive: true });
    const events = join(runDir, "events.jsonl");
    expect(await readRecordedDefinitionHash(runDir)).toBeUndefined();
    await writeFile(
      events,
      [
        JSON.stringify({ type: "run-start", agent: "a" }),
        JSON.stringify({ type: "definition-snapshot", hash: "aaa", files: 3 }),
        '{"type": "definition-broken',
        "",
      ].join("\n"),
    );
    expect(await readRecordedDefinitionHash(runDir)).toBe("aaa");
    await appendFile(
      events,
      `${JSON.stringify({ type: "definition-reloaded", previousHash: "aaa", hash: "bbb", files: 4 })}\n`,
    );
    expect(await readRecordedDefinitionHash(runDir)).toBe("bbb");
  });
});
