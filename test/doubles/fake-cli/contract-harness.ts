/**
 * Contract harnesses (test/backend-contract.ts) for the backends that run an
 * agent CLI, each wired to its fake in this folder, and for replay.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Backend, BackendRequest } from "../../../src/ports/backend.js";
import type {
  BackendContractHarness,
  ContractTurn,
  ObservedQuery,
} from "../../backend-contract.js";
import {
  type FakeCliLogEntry,
  type FakeCliName,
  type FakeCliTurn,
  fakeCliPath,
  makeRequest,
  setUpFakeCli,
} from "./fake-cli-harness.js";

function toFakeTurn(turn: ContractTurn): FakeCliTurn {
  switch (turn.kind) {
    case "structured":
      return { structuredOutput: turn.output };
    case "text":
      return { text: turn.text };
    case "rate_limit":
      return { fail: "rate_limit" };
    case "hang":
      return { fail: "hang" };
  }
}

/** The session id a CLI was asked to continue, read from its argv. */
function resumedSessionOf(fake: FakeCliName, argv: readonly string[]): string | undefined {
  const flag = { claude: "--resume", codex: "resume", opencode: "--session", "agent-command": "" }[
    fake
  ];
  const index = flag === "" ? -1 : argv.indexOf(flag);
  return index === -1 ? undefined : argv[index + 1];
}

function observedOf(fake: FakeCliName, entry: FakeCliLogEntry): ObservedQuery {
  const resumed = resumedSessionOf(fake, entry.argv);
  return {
    ...(resumed === undefined ? {} : { resumedSessionId: resumed }),
    pids: entry.childPid === undefined ? [entry.pid] : [entry.pid, entry.childPid],
  };
}

/** A harness for a backend made from the fake CLI's command line. */
export async function makeFakeCliContractHarness(
  fake: FakeCliName,
  makeBackend: (command: readonly string[]) => Backend,
): Promise<BackendContractHarness> {
  const setup = await setUpFakeCli();
  return {
    backend: makeBackend([fakeCliPath(fake)]),
    script: (turns) => setup.script(turns.map(toFakeTurn)),
    request: (overrides) => makeRequest(setup, overrides),
    observed: async () => (await setup.log()).map((entry) => observedOf(fake, entry)),
    cleanup: setup.cleanup,
  };
}

/** A harness for replay: the script becomes a session file; requests are observed as they come. */
export async function makeReplayContractHarness(
  makeBackend: (source: string) => Backend,
): Promise<BackendContractHarness> {
  const root = await mkdtemp(path.join(os.tmpdir(), "closer-replay-contract-"));
  const source = path.join(root, "session.json");
  const cwd = path.join(root, "work");
  await mkdir(cwd);
  const seen: ObservedQuery[] = [];
  const replay = makeBackend(source);
  const backend: Backend = {
    name: replay.name,
    enforcesSchema: replay.enforcesSchema,
    query(request: BackendRequest) {
      seen.push(
        request.sessionId === undefined
          ? { pids: [] }
          : { resumedSessionId: request.sessionId, pids: [] },
      );
      return replay.query(request);
    },
  };
  const replayTurn = (turn: ContractTurn) => {
    if (turn.kind === "structured") return { structuredOutput: turn.output };
    if (turn.kind === "text") return { text: turn.text };
    if (turn.kind === "rate_limit") {
      return { error: { kind: "rate_limit", message: "429 Too Many Requests", retryable: true } };
    }
    return { text: "" };
  };
  return {
    backend,
    script: (turns) =>
      writeFile(source, JSON.stringify({ version: 1, turns: turns.map(replayTurn) })),
    request: (overrides) => makeRequest({ cwd, env: {} }, overrides),
    observed: async () => seen,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
