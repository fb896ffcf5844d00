import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "./shell-command.js";

/**
 * bash reads ~/.bashrc when its stdin is a socket and it is not nested; a
 * command's input must reach it another way (docs/loop.md#command-input).
 */
describe("runCommand input", () => {
  let home: string;
  let marker: string;
  const bash = (line: string, input: string) =>
    runCommand({
      command: ["bash", "-c", line],
      cwd: home,
      input,
      timeoutMs: 30_000,
      inheritEnv: false,
      env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "closer-input-home-"));
    marker = join(home, "bashrc-ran");
    writeFileSync(join(home, ".bashrc"), `touch '${marker}'\n`);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("does not make bash read the user's .bashrc", async () => {
    const result = await bash("cat", "hello\n");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("hello\n");
    expect(existsSync(marker)).toBe(false);
  });

  it("the same bash line with a socket on stdin reads it (the test can fail)", async () => {
    // Without SHLVL and with a pipe on stdin, as Node's children had before.
    const result = await runCommand({
      command: [
        "node",
        "-e",
        "require('child_process').spawnSync('bash',['-c','true'],{stdio:['pipe','inherit','inherit']})",
      ],
      cwd: home,
      timeoutMs: 30_000,
      inheritEnv: false,
      env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    expect(result.exitCode).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it("hands over a large input whole", async () => {
    const input = Array.from(
      { length: 200_000 },
      (_, i) => `line ${i} ${"é".repeat(i % 7)}\n`,
    ).join("");
    expect(Buffer.byteLength(input)).toBeGreaterThan(3_000_000);
    const result = await bash("sha256sum | cut -d' ' -f1", input);
    expect(result.stdout.trim()).toBe(createHash("sha256").update(input).digest("hex"));
    expect(existsSync(marker)).toBe(false);
  });

  it("hands over an empty input as an empty stdin", async () => {
    const result = await bash("wc -c", "");
    expect(result.stdout.trim()).toBe("0");
    expect(existsSync(marker)).toBe(false);
  });

  it("leaves no temp file behind", async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith("closer-input-"));
    await bash("cat >/dev/null", "x".repeat(100_000));
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith("closer-input-"));
    expect(after.filter((name) => !before.includes(name))).toEqual([]);
  });

  it("says so when the input cannot be written to the temp folder", async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(home, "no-such-folder");
    try {
      expect(() => bash("cat", "hello")).toThrow(
        /could not write the command's input to .*no-such-folder/,
      );
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
