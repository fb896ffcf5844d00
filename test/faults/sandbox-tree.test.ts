import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { startCloser } from "./support/closer-process.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { sandboxMissing, sandboxWorks } from "./support/sandbox-works.js";

type RecordedEvent = Record<string, unknown>;

const ofType = (events: readonly RecordedEvent[], type: string) =>
  events.filter((event) => event.type === type);

/** The names the sandbox library guards in its working folder (docs/sandbox.md#library-host). */
const GUARDED = [
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".mcp.json",
  ".vscode",
  ".idea",
  ".claude",
];

const goInstalled = (() => {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** A check that runs `command` in the tree and passes on exit 0. */
function checkRunning(command: string) {
  return {
    type: "command",
    command,
    successWhen: "exitCode:0",
    failurePattern: "check-failed",
    extractParams: { errorOutput: "stderr" },
  };
}

/** Writes into every cache the toolchains are given, and fails when one is missing. */
const WRITE_EVERY_CACHE = [
  "set -e",
  'for v in "$GOCACHE" "$npm_config_cache" "$PIP_CACHE_DIR" "$UV_CACHE_DIR" "$CARGO_HOME"; do',
  '  test -n "$v"; mkdir -p "$v/probe"; echo cached > "$v/probe/entry"',
  "done",
].join("\n");

describe("The OS sandbox and the tree and caches of the project's tools", () => {
  describe(`where it works${sandboxWorks ? "" : ` — skipped, it cannot run here: ${sandboxMissing}`}`, {
    skip: !sandboxWorks,
  }, () => {
    let repo: FaultRepo | undefined;
    afterEach(async () => {
      await repo?.cleanup();
      repo = undefined;
    });

    /** closer started in the project folder, as a user starts it, working there (no worktree). */
    async function runInPlace(dir: string) {
      const closer = startCloser(
        ["run", "faulty", "--task", "make the widgets work", "--sandbox", "on", "--json"],
        { cwd: dir },
      );
      const { code } = await closer.exited;
      const runDir = await onlyRunFolder(dir);
      return {
        code,
        stdout: closer.stdout(),
        stderr: closer.stderr(),
        runJson: await readRunJson(runDir),
        events: await readRecordedEvents(runDir),
        retryPrompt: await readFile(join(runDir, "prompts/iteration-002.md"), "utf8").catch(
          () => "",
        ),
      };
    }

    fault(
      {
        what: "closer works in the project folder it was started from; the model lists the tree's top folder, reads every JSON file in it, and writes into its tools' caches",
        does: "the model sees no stand-in of the sandbox's (no .mcp.json, .bashrc, .vscode, … that the project does not have), every JSON file reads, its caches are writable; the run completes in one iteration with nothing refused",
      },
      async () => {
        repo = await makeFaultRepo({
          files: { "config.json": '{"a":1}\n' },
          program: [
            'import { execSync } from "node:child_process";',
            'import { readdirSync, readFileSync, writeFileSync } from "node:fs";',
            READ_PROMPT,
            'const entries = readdirSync(".");',
            "const unreadable = [];",
            'for (const name of entries.filter((entry) => entry.endsWith(".json"))) {',
            '  try { JSON.parse(readFileSync(name, "utf8")); } catch (error) { unreadable.push(name + ": " + error.message); }',
            "}",
            `execSync(${JSON.stringify(WRITE_EVERY_CACHE)}, { shell: "/bin/bash" });`,
            'writeFileSync("scratch/seen.json", JSON.stringify({ entries, unreadable }));',
            'writeFileSync("work.txt", "done\\n");',
            'execSync("git add work.txt && git commit --quiet -m work");',
            DONE_ANSWER,
          ].join("\n"),
        });
        const run = await runInPlace(repo.dir);
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ success: true, iterations: 1 });
        const seen = JSON.parse(await readFile(join(repo.dir, "scratch/seen.json"), "utf8"));
        expect(seen.unreadable).toEqual([]);
        expect(seen.entries.filter((name: string) => GUARDED.includes(name))).toEqual([]);
        expect(run.runJson.sandbox).toMatchObject({ on: true, refusals: 0 });
      },
      60_000,
    );

    fault(
      {
        what: "the model overwrites the project's own editor and MCP settings (.vscode/settings.json, .mcp.json) in the project folder it works in",
        does: "the sandbox refuses both writes: the files keep their content, the refusal names them and refutes the declaration made with it",
      },
      async () => {
        repo = await makeFaultRepo({
          files: { ".vscode/settings.json": "{}\n", ".mcp.json": '{"mcpServers":{}}\n' },
          program: [
            'import { execSync } from "node:child_process";',
            'import { existsSync, writeFileSync } from "node:fs";',
            READ_PROMPT,
            "const sh = (line) => { try { execSync(line, { shell: '/bin/bash', stdio: 'ignore' }); } catch {} };",
            'if (!prompt.includes("OS sandbox")) {',
            '  sh("echo planted > .vscode/settings.json");',
            '  sh("echo planted > .mcp.json");',
            '} else if (!existsSync("work.txt")) {',
            '  writeFileSync("work.txt", "done\\n");',
            '  sh("git add work.txt && git commit --quiet -m work");',
            "}",
            DONE_ANSWER,
          ].join("\n"),
        });
        const run = await runInPlace(repo.dir);
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ success: true, iterations: 2 });
        expect(await readFile(join(repo.dir, ".vscode/settings.json"), "utf8")).toBe("{}\n");
        expect(await readFile(join(repo.dir, ".mcp.json"), "utf8")).toBe('{"mcpServers":{}}\n');
        const refused = ofType(run.events, "sandbox-refused");
        const lines = ((refused[0]?.refusals ?? []) as string[]).join("\n");
        expect(refused[0]).toMatchObject({ iteration: 1, kind: "backend" });
        expect(lines).toContain(join(repo.dir, ".vscode/settings.json"));
        expect(lines).toContain(join(repo.dir, ".mcp.json"));
      },
      60_000,
    );

    fault(
      {
        what: "a check writes into the caches of its tools (Go's build cache, npm's, pip's, uv's, cargo's home)",
        does: "each variable names a folder of the check's own and every write succeeds with nothing refused: the run completes",
      },
      async () => {
        repo = await makeFaultRepo({
          validators: { "tests-pass": checkRunning(WRITE_EVERY_CACHE) },
          conditions: ["tests-pass"],
        });
        const run = await runInPlace(repo.dir);
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ success: true });
        expect(run.runJson.sandbox).toMatchObject({ on: true, refusals: 0 });
      },
      60_000,
    );

    fault(
      {
        what: "the model writes into the checks' caches, found beside its own (a forged `ok (cached)` for the checks' go test)",
        does: "the sandbox refuses the write: the refusal names the checks' cache folder and refutes the declaration made with it",
      },
      async () => {
        repo = await makeFaultRepo({
          program: [
            'import { execSync } from "node:child_process";',
            'import { existsSync, writeFileSync } from "node:fs";',
            READ_PROMPT,
            "const sh = (line) => { try { execSync(line, { shell: '/bin/bash', stdio: 'ignore' }); } catch {} };",
            'if (!prompt.includes("OS sandbox")) {',
            '  sh(\'test -n "$GOCACHE" && echo forged > "$(dirname "$(dirname "$GOCACHE")")/b/planted"\');',
            '} else if (!existsSync("work.txt")) {',
            '  writeFileSync("work.txt", "done\\n");',
            '  sh("git add work.txt && git commit --quiet -m work");',
            "}",
            DONE_ANSWER,
          ].join("\n"),
        });
        const run = await runInPlace(repo.dir);
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ success: true, iterations: 2 });
        const refused = ofType(run.events, "sandbox-refused");
        expect(refused[0]).toMatchObject({ iteration: 1, kind: "backend" });
        expect(((refused[0]?.refusals ?? []) as string[]).join("\n")).toMatch(/\/b\/planted/);
      },
      60_000,
    );

    fault(
      {
        what: `a check builds and tests a Go module (go build, go vet, go test)${goInstalled ? "" : " — go is not installed here"}`,
        does: "Go creates its build cache in the check's own folder: the check passes with nothing refused",
      },
      async () => {
        if (!goInstalled) return;
        repo = await makeFaultRepo({
          files: {
            "go.mod": "module example.com/widgets\n\ngo 1.19\n",
            "widgets.go": "package widgets\n\nfunc Count() int { return 3 }\n",
            "widgets_test.go":
              'package widgets\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n\tif Count() != 3 {\n\t\tt.Fatal("count")\n\t}\n}\n',
          },
          validators: {
            "tests-pass": checkRunning(
              'go build ./... && go vet ./... && go test ./... && test -n "$(ls "$GOCACHE")"',
            ),
          },
          conditions: ["tests-pass"],
        });
        const run = await runInPlace(repo.dir);
        const ends = ofType(run.events, "validator-end");
        expect(run.code, `${run.stderr}\n${JSON.stringify(ends)}`).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ success: true });
        expect(run.runJson.sandbox).toMatchObject({ on: true, refusals: 0 });
      },
      180_000,
    );
  });
});
