import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import type { SandboxEntry } from "../../src/ports/loop-ports.js";
import { runCommand } from "../../src/process/shell-command.js";
import { readGitLayout } from "../../src/sandbox/git-layout.js";
import { prepareRunSandbox, type RunSandbox } from "../../src/sandbox/run-sandbox.js";
import { sandboxSupport } from "../../src/sandbox/sandbox-runtime.js";
import { fault } from "./support/fault.js";

const support = await sandboxSupport();
const joins = support.works && support.held.joins;
const why = !support.works
  ? `the sandbox cannot run here: ${support.reason}`
  : support.held.joins
    ? ""
    : `processes cannot join a held sandbox here: ${support.held.reason}`;

const CONFIG = {
  mode: "on" as const,
  allowedDomains: [],
  validatorDomains: [],
  allowWrite: [],
  denyRead: [],
  ignoreRefusals: [],
};

/** The command lines of every process on the machine. */
async function commandLines(): Promise<string[]> {
  const lines: string[] = [];
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    const line = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (line !== "") lines.push(line.replaceAll("\0", " "));
  }
  return lines;
}

describe("One held sandbox per run and kind holds what a sandbox per process held", () => {
  describe(`where processes join it${joins ? "" : ` — skipped: ${why}`}`, { skip: !joins }, () => {
    let tree: string;
    let sandbox: RunSandbox;

    beforeEach(async () => {
      tree = await realpath(await mkdtemp(join(tmpdir(), "closer-held-")));
      const git = (...args: string[]) => execFileSync("git", args, { cwd: tree });
      git("init", "--quiet", "--initial-branch=main");
      git(
        "-c",
        "user.email=t@t",
        "-c",
        "user.name=t",
        "commit",
        "--quiet",
        "--allow-empty",
        "-m",
        "start",
      );
      const layout = await readGitLayout(tree);
      const state = await prepareRunSandbox({
        config: CONFIG,
        runId: "held",
        agentFile: join(tree, "agent.json"),
        place: {
          tree,
          ...(layout === undefined ? {} : { git: layout }),
          runsDir: join(tree, ".git", "closer", "runs"),
          agentDirs: [],
          home: homedir(),
          backendKinds: ["command"],
          backendEnv: {},
          passGithubToken: false,
          config: CONFIG,
        },
      });
      if (!state.on) throw new Error(`the sandbox is off: ${state.reason}`);
      sandbox = state.sandbox;
    });
    afterEach(async () => {
      await sandbox.release();
      await rm(tree, { recursive: true, force: true });
    });

    async function inEntry(entry: SandboxEntry, command: string) {
      return runCommand({ command, cwd: tree, sandbox: entry.wrapper, timeoutMs: 20_000 });
    }

    async function once(kind: "backend" | "validators", command: string) {
      const entry = await sandbox.enter(kind);
      try {
        return await inEntry(entry, command);
      } finally {
        await entry.leave();
      }
    }

    fault(
      {
        what: "a held place is replaced on the machine between two queries (git rewrites .git/config by renaming a new file over it, which takes the sandbox's read-only mount of the old one away)",
        does: "the next query joins a sandbox made again for the place as it is now: its write to .git/config is refused and the file keeps what it had",
      },
      async () => {
        const config = join(tree, ".git", "config");
        expect((await once("backend", "echo '# one' >> .git/config")).exitCode).not.toBe(0);
        const before = await readFile(config, "utf8");
        await writeFile(`${config}.new`, before);
        await rename(`${config}.new`, config);
        const second = await once("backend", "echo '[core]\n\thooksPath = /tmp' >> .git/config");
        expect(second.exitCode).not.toBe(0);
        expect(await readFile(config, "utf8")).toBe(before);
        expect(await sandbox.takeRefusals("backend")).toEqual(
          expect.arrayContaining([expect.stringContaining(config)]),
        );
      },
      60_000,
    );

    fault(
      {
        what: "the held sandbox's holder is killed on the machine between two queries (its process id free for another process)",
        does: "the next query joins a held sandbox made again, never the namespaces of whatever process has that id now: its write to .git/config is refused",
      },
      async () => {
        const config = join(tree, ".git", "config");
        await once("backend", "true");
        const holders = execFileSync("pgrep", ["-f", `^bwrap .*${sandbox.scratchDir}`], {
          encoding: "utf8",
        })
          .trim()
          .split("\n")
          .map(Number);
        for (const pid of holders) process.kill(pid, "SIGKILL");
        const before = await readFile(config, "utf8");
        const after = await once("backend", "echo '# two' >> .git/config");
        expect(after.stderr).toContain("Read-only file system");
        expect(await readFile(config, "utf8")).toBe(before);
      },
      60_000,
    );

    fault(
      {
        what: "the model's code in a check writes into its toolchain caches, while another check runs and before the next one",
        does: "what it writes reaches neither the check beside it, which has caches of its own in a sandbox of its own, nor the check after it, which starts with the caches emptied and can write them",
      },
      async () => {
        const caches = '$(dirname "$GOCACHE")';
        const [first, beside] = await Promise.all([
          sandbox.enter("validators"),
          sandbox.enter("validators"),
        ]);
        const planted = await inEntry(first, `echo planted > ${caches}/planted && ls -A ${caches}`);
        const besideSaw = await inEntry(
          beside,
          `ls -A ${caches}; cat ${caches}/planted 2>&1 || true`,
        );
        await Promise.all([first.leave(), beside.leave()]);
        const after = await Promise.all([sandbox.enter("validators"), sandbox.enter("validators")]);
        const nextSaw = await Promise.all(
          after.map((entry) =>
            inEntry(entry, `ls -A ${caches}; cat ${caches}/planted 2>&1; mkdir "$GOCACHE"`),
          ),
        );
        await Promise.all(after.map((entry) => entry.leave()));
        expect(planted.exitCode).toBe(0);
        expect(planted.stdout).toContain("planted");
        expect(nextSaw.map((saw) => saw.exitCode)).toEqual([0, 0]);
        for (const saw of [besideSaw, ...nextSaw]) {
          expect(saw.stdout.split("\n")[0]).toBe("cargo");
          expect(saw.stdout).toContain("No such file");
          expect(saw.stdout).not.toContain("planted\n");
        }
      },
      60_000,
    );

    fault(
      {
        what: "the model's code in one check listens on a loopback port while another check runs and connects to that port",
        does: "the other check reaches nothing: checks at once each have a held sandbox, and a network, of their own",
      },
      async () => {
        const [listening, other] = await Promise.all([
          sandbox.enter("validators"),
          sandbox.enter("validators"),
        ]);
        const up = join(sandbox.scratchDir, `up-${process.pid}`);
        const done = join(sandbox.scratchDir, `done-${process.pid}`);
        const server = inEntry(
          listening,
          `node -e 'const fs = require("fs"); require("net").createServer((s) => s.end("forged\\n")).listen(47123, "127.0.0.1", () => { fs.writeFileSync(${JSON.stringify(up)}, ""); console.log("up"); const wait = setInterval(() => { if (fs.existsSync(${JSON.stringify(done)})) process.exit(0); }, 50); setTimeout(() => { clearInterval(wait); process.exit(0); }, 20000); })'`,
        );
        for (let waited = 0; waited < 200 && !existsSync(up); waited += 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const client = await inEntry(
          other,
          `node -e 'require("net").connect(47123, "127.0.0.1").on("data", (d) => { process.stdout.write(String(d)); process.exit(0); }).on("error", (e) => { console.log(e.code); process.exit(0); })'`,
        );
        await writeFile(done, "");
        const served = await server;
        await Promise.all([listening.leave(), other.leave()]);
        expect(served.stdout).toContain("up");
        expect(client.stdout).not.toContain("forged");
        expect(client.stdout).toContain("ECONNREFUSED");
      },
      60_000,
    );

    fault(
      {
        what: "a query's process starts a program in a session of its own, in the background, and exits",
        does: "the program ends with the process that started it, as each process has a process namespace of its own: nothing of the query runs on",
      },
      async () => {
        const marker = `${process.pid}${Date.now()}`;
        const started = await once(
          "backend",
          `setsid sleep 300${marker.slice(-3)}.${marker} & echo started`,
        );
        expect(started.stdout).toContain("started");
        const running = (await commandLines()).filter((line) => line.includes(`.${marker}`));
        expect(running).toEqual([]);
      },
      60_000,
    );

    fault(
      {
        what: "a sandboxed process tries to undo the sandbox's mounts: unmount or remount the read-only .git/config, or enter the held sandbox's namespaces itself",
        does: "each is refused, as the process holds no capability over the sandbox's mounts: .git/config keeps what it had",
      },
      async () => {
        const config = join(tree, ".git", "config");
        const before = await readFile(config, "utf8");
        const result = await once(
          "validators",
          [
            "umount .git/config; mount -o remount,rw,bind .git/config",
            "nsenter --target 1 --mount sh -c 'echo x >> .git/config'",
            "echo x >> .git/config",
          ].join("; "),
        );
        expect(result.exitCode).not.toBe(0);
        expect(await readFile(config, "utf8")).toBe(before);
      },
      60_000,
    );

    fault(
      {
        what: "a query and a check run at once and each is refused a write",
        does: "each refusal is named for the one that made it: the query's under the backend, the check's under the validators",
      },
      async () => {
        await Promise.all([
          once("backend", "touch /etc/closer-held-from-query"),
          once("validators", "touch /etc/closer-held-from-check"),
        ]);
        const query = await sandbox.takeRefusals("backend");
        const check = await sandbox.takeRefusals("validators");
        expect(query.join("\n")).toContain("closer-held-from-query");
        expect(query.join("\n")).not.toContain("closer-held-from-check");
        expect(check.join("\n")).toContain("closer-held-from-check");
        expect(check.join("\n")).not.toContain("closer-held-from-query");
      },
      60_000,
    );

    fault(
      {
        what: "the run ends while its held sandboxes wait for the next query",
        does: "their holders end with it: no process of the run's sandboxes is left",
      },
      async () => {
        await once("backend", "true");
        await once("validators", "true");
        const ofRun = async () =>
          (await commandLines()).filter(
            (line) => line.startsWith("bwrap ") && line.includes(sandbox.scratchDir),
          );
        expect((await ofRun()).length).toBeGreaterThan(0);
        await sandbox.release();
        expect(await ofRun()).toEqual([]);
        sandbox.release = async () => undefined;
      },
      60_000,
    );
  });
});
