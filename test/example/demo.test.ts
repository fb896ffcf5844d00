import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCommand } from "../../src/process/shell-command.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUILT = existsSync(join(ROOT, "dist/bin/closer.js"));

/** README's first command, minus the install: the demo script on the built CLI. */
describe("the README demo", () => {
  it.skipIf(!BUILT)("without credentials replays the session and shows the whole arc", async () => {
    const home = await mkdtemp(join(tmpdir(), "closer-demo-home-"));
    try {
      // runCommand adds to this process's environment, so credentials are blanked, not left out.
      const noCredentials = {
        ANTHROPIC_API_KEY: "",
        ANTHROPIC_AUTH_TOKEN: "",
        CLAUDE_CODE_OAUTH_TOKEN: "",
        CLOSER_DEMO_BACKEND: "",
      };
      const result = await runCommand({
        command: ["bash", join(ROOT, "examples/demo.sh")],
        cwd: ROOT,
        env: { ...noCredentials, HOME: home, NO_COLOR: "1" },
        timeoutMs: 120_000,
      });
      const output = result.stderr;
      expect(result.exitCode, output).toBe(0);
      expect(output).toContain("no Claude credentials found");
      expect(output).toContain("✗ tests-pass");
      expect(output).toContain("collapses runs of spaces and trims the ends");
      expect(output).toContain("retry with test-failed");
      expect(output).toContain("✓ tests-pass");
      expect(output).toMatch(/completed after 2 iteration/);
      const workDir = /repository the agent worked on is (\S+) /.exec(output)?.[1];
      expect(workDir).toBeDefined();
      await rm(workDir ?? "", { recursive: true, force: true });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
