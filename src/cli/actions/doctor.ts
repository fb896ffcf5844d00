import { homedir } from "node:os";
import { resolve } from "node:path";
import { listAgents, loadAgent } from "../../definition/load-agent.js";
import { isCloserError } from "../../errors.js";
import type { ResolvedAgent } from "../../ports/agent.js";
import { checkBackends } from "../doctor/backend-checks.js";
import {
  type DoctorCheck,
  type DoctorPlace,
  mergeChecks,
  notOk,
  ok,
} from "../doctor/doctor-check.js";
import {
  checkGit,
  checkGithubToken,
  checkNode,
  checkRedis,
  checkSandbox,
} from "../doctor/machine-checks.js";
import { readPackageInfo } from "../package-info.js";
import { exitCodeAfterError } from "./error-exit.js";

export interface DoctorFlags {
  readonly cwd?: string;
  /** Check the queue's Redis too (it is checked anyway when --redis or CLOSER_REDIS_URL names one). */
  readonly queue?: boolean;
  readonly redis?: string;
  readonly json?: boolean;
}

/** `closer doctor` (docs/cli.md#doctor): one line per prerequisite; 1 when a required one is missing. */
export async function runDoctor(
  agentName: string | undefined,
  flags: DoctorFlags,
): Promise<number> {
  try {
    const cwd = resolve(flags.cwd ?? process.cwd());
    const place: DoctorPlace = {
      env: process.env,
      cwd,
      home: process.env.HOME ?? homedir(),
      platform: process.platform,
    };
    const checks = await runChecks(agentName, flags, place);
    const missing = checks.filter((check) => check.status === "missing").length;
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify({ ok: missing === 0, checks }, null, 2)}\n`);
    } else {
      process.stdout.write(describeChecks(checks));
    }
    return missing === 0 ? 0 : 1;
  } catch (error) {
    return exitCodeAfterError(error);
  }
}

async function runChecks(
  agentName: string | undefined,
  flags: DoctorFlags,
  place: DoctorPlace,
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [checkNode(process.version, readPackageInfo().nodeRange)];
  checks.push(...(await checkGit(place)));
  const { agents, problems } = await readAgents(agentName, place.cwd);
  checks.push(...problems);
  checks.push(...(await sandboxChecks(agents, place)));
  for (const agent of agents) checks.push(...(await checkBackends(agent, place)));
  const onIssues = agents.filter((agent) => agent.parameters.issue !== undefined);
  if (onIssues.length > 0)
    checks.push(
      checkGithubToken(
        place,
        onIssues.map((agent) => agent.name),
      ),
    );
  const { REDIS_URL_VARIABLE } = await import("../../queue/redis-connection.js");
  if (flags.queue === true || flags.redis !== undefined || place.env[REDIS_URL_VARIABLE]) {
    checks.push(await checkRedis(place, flags.redis));
  }
  return mergeChecks(checks);
}

/** The agents to check: the one named, or every one under .agent/; one that does not load is said. */
async function readAgents(
  agentName: string | undefined,
  cwd: string,
): Promise<{ agents: ResolvedAgent[]; problems: DoctorCheck[] }> {
  const names =
    agentName === undefined ? (await listAgents(cwd)).map((listing) => listing.name) : [agentName];
  if (names.length === 0) {
    const none = notOk("warning", "agents", `none under ${cwd}/.agent/`, "closer init <agent>");
    return { agents: [], problems: [none] };
  }
  const agents: ResolvedAgent[] = [];
  const problems: DoctorCheck[] = [];
  for (const name of names) {
    try {
      agents.push(await loadAgent(name, { cwd }));
    } catch (error) {
      // An agent named that does not exist is a usage error; a broken one is validate's to explain.
      if (!isCloserError(error) || (agentName !== undefined && error.code === "not_found")) {
        throw error;
      }
      const first = error.describe().split("\n")[0] ?? error.message;
      problems.push({
        ...notOk("warning", `agent ${name}`, `does not load: ${first}`, `closer validate ${name}`),
        agents: [name],
      });
    }
  }
  return { agents, problems };
}

/** The OS sandbox, unless every agent turns it off; required when one asks for it (`on`). */
async function sandboxChecks(
  agents: readonly ResolvedAgent[],
  place: DoctorPlace,
): Promise<DoctorCheck[]> {
  const modes = agents.map((agent) => agent.runner.sandbox.mode);
  if (modes.length > 0 && modes.every((mode) => mode === "off")) {
    return [ok("OS sandbox", "not used: runner.sandbox.mode is off")];
  }
  const required = modes.includes("on");
  const needing = agents.filter((agent) => agent.runner.sandbox.mode !== "off");
  const checks = await checkSandbox(place, required);
  return needing.length === 0
    ? checks
    : checks.map((check) => ({ ...check, agents: needing.map((agent) => agent.name) }));
}

function describeChecks(checks: readonly DoctorCheck[]): string {
  const lines: string[] = [];
  for (const check of checks) {
    const agents = check.agents === undefined ? "" : ` [${check.agents.join(", ")}]`;
    lines.push(`${check.status.padEnd(7)}  ${check.name}: ${check.detail}${agents}`);
    if (check.status !== "ok" && check.fix !== undefined) lines.push(`         fix: ${check.fix}`);
  }
  const missing = checks.filter((check) => check.status === "missing").length;
  const warnings = checks.filter((check) => check.status === "warning").length;
  lines.push(
    missing > 0
      ? `\n${missing} missing, ${warnings} warning(s): a run needs what is missing; each fix line says how to get it`
      : `\nnothing missing${warnings > 0 ? `, ${warnings} warning(s)` : ""}`,
  );
  return `${lines.join("\n")}\n`;
}
