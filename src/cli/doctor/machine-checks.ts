/** The machine's side of `closer doctor` (docs/cli.md#doctor): Node, git, the OS sandbox, GitHub, Redis. */
import { onPath } from "../scaffold/init-warnings.js";
import { absent, type DoctorCheck, type DoctorPlace, notOk, ok } from "./doctor-check.js";

/** Node's version against package.json's `engines.node` (`>=22.12`). */
export function checkNode(version: string, range: string): DoctorCheck {
  const wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  const at = (match: RegExpExecArray | null, index: number) => Number(match?.[index] ?? 0);
  let newEnough = true;
  for (const index of [1, 2, 3]) {
    if (at(have, index) !== at(wanted, index)) {
      newEnough = at(have, index) > at(wanted, index);
      break;
    }
  }
  if (wanted === null || newEnough) return ok("node", `${version} (closer needs ${range})`);
  return notOk(
    "missing",
    "node",
    `${version} is older than closer needs (${range})`,
    "install Node 22.12 or later: nvm install 22 (or https://nodejs.org)",
  );
}

/** git on PATH, and who its commits are by: closer commits and merges the verified work. */
export async function checkGit(place: DoctorPlace): Promise<DoctorCheck[]> {
  if (!(await onPath("git", place.env.PATH ?? ""))) {
    return [notOk("missing", "git", "not on PATH", "sudo apt-get install git")];
  }
  // Loaded here: the only module that runs git (docs/style.md#principle-4).
  const { readGit, runGit } = await import("../../workspace/git.js");
  const version = await readGit(place.cwd, ["--version"]).catch(() => "git (version unknown)");
  const unset: string[] = [];
  for (const key of ["user.name", "user.email"]) {
    const result = await runGit(place.cwd, ["config", key], { allowFailure: true });
    if (result.exitCode !== 0 || result.stdout.trim() === "") unset.push(key);
  }
  const identity =
    unset.length === 0
      ? ok("git identity", "user.name and user.email are set")
      : notOk(
          "missing",
          "git identity",
          `${unset.join(" and ")} not set: closer's commits and merges fail`,
          unset
            .map(
              (key) =>
                `git config --global ${key} ${key === "user.name" ? '"Your Name"' : "you@example.com"}`,
            )
            .join(" && "),
        );
  return [ok("git", version.replace(/^git version /, "")), identity];
}

/** The programs the OS sandbox runs on, on Linux, by the Debian package that installs each. */
const SANDBOX_PROGRAMS: readonly { readonly program: string; readonly pkg: string }[] = [
  { program: "bwrap", pkg: "bubblewrap" },
  { program: "socat", pkg: "socat" },
  { program: "rg", pkg: "ripgrep" },
];

/**
 * What the OS sandbox needs (docs/sandbox.md#where-it-runs): its programs, then a sandboxed
 * `true`, which proves the user namespaces too. `required`: an agent's sandbox is `on`.
 */
export async function checkSandbox(place: DoctorPlace, required: boolean): Promise<DoctorCheck[]> {
  const status = absent(required);
  const checks: DoctorCheck[] = [];
  if (place.platform === "linux") {
    const missing: string[] = [];
    for (const { program, pkg } of SANDBOX_PROGRAMS) {
      if (await onPath(program, place.env.PATH ?? "")) {
        checks.push(ok(pkg, `${program} is on PATH`));
      } else {
        missing.push(pkg);
        checks.push(
          notOk(status, pkg, `${program} is not on PATH: the OS sandbox cannot start`, ""),
        );
      }
    }
    const fix = `sudo apt-get install ${missing.join(" ")}`;
    if (missing.length > 0)
      return checks.map((check) => (check.status === "ok" ? check : { ...check, fix }));
  }
  const { sandboxSupport } = await import("../../sandbox/sandbox-runtime.js");
  const support = await sandboxSupport();
  checks.push(
    support.works
      ? ok("OS sandbox", "a sandboxed command runs (user namespaces allowed)")
      : notOk(status, "OS sandbox", support.reason, support.fix),
  );
  if (support.works) {
    // docs/sandbox.md#held-sandbox: where processes cannot join one, each entry builds its own.
    checks.push(
      support.held.joins
        ? ok("held sandbox", "processes join one sandbox per run and kind")
        : notOk(
            "warning",
            "held sandbox",
            `each query and check builds a sandbox of its own (about 30 ms more each): ${support.held.reason}`,
            "install util-linux 2.39 or later: its nsenter, unshare and setpriv (nsenter with --user-parent for a user other than root)",
          ),
    );
  }
  return checks;
}

/** An agent that works on issues talks to GitHub with GITHUB_TOKEN (only a warning: tasks need none). */
export function checkGithubToken(place: DoctorPlace, agents: readonly string[]): DoctorCheck {
  const check =
    (place.env.GITHUB_TOKEN ?? "") !== ""
      ? ok("GITHUB_TOKEN", "set")
      : notOk(
          "warning",
          "GITHUB_TOKEN",
          "not set: issue runs cannot read the issue or label, comment on and close it",
          "export GITHUB_TOKEN=<a token with repo scope> (gh auth token prints gh's)",
        );
  return { ...check, agents };
}

/** The queue's Redis: the URL of `--redis` or CLOSER_REDIS_URL answers, else redis-server to start one. */
export async function checkRedis(
  place: DoctorPlace,
  flag: string | undefined,
): Promise<DoctorCheck> {
  const { REDIS_URL_VARIABLE, assertRedisReachable, parseRedisUrl } = await import(
    "../../queue/redis-connection.js"
  );
  const url = (flag ?? place.env[REDIS_URL_VARIABLE] ?? "").trim();
  if (url === "") {
    const server = await onPath("redis-server", place.env.PATH ?? "");
    return notOk(
      "missing",
      "redis",
      `no --redis URL and no ${REDIS_URL_VARIABLE}${server ? " (redis-server is installed)" : ""}`,
      `${server ? "" : "sudo apt-get install redis-server && "}redis-server --daemonize yes && export ${REDIS_URL_VARIABLE}=redis://127.0.0.1:6379`,
    );
  }
  try {
    // Named by host and port only: the URL may hold a password.
    const connection = parseRedisUrl(url);
    await assertRedisReachable(connection, 3000);
    return ok("redis", `${connection.host}:${connection.port} answers`);
  } catch (error) {
    return notOk(
      "missing",
      "redis",
      errorMessage(error),
      "start Redis there: redis-server --daemonize yes (or docker run -p 6379:6379 redis)",
    );
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
