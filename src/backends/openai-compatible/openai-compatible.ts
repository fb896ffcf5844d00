/**
 * The openai-compatible backend (docs/backends.md#openai-compatible): any
 * endpoint that speaks OpenAI's Chat Completions, with closer running the
 * tool loop itself through the AI SDK. The SDK is loaded on the first query,
 * so a process that never runs this backend never pays for it.
 */

import type {
  Backend,
  BackendError,
  BackendRequest,
  BackendResponse,
  LeftRunningProcess,
} from "../../ports/backend.js";
import type { BackendConfig, ModelPricing } from "../../ports/runner-config.js";
import { makeAgentEnvironment } from "../../process/agent-environment.js";
import { abortedError, errorResponse, makeBackendError, timeoutError } from "../backend-errors.js";
import {
  makeStructuredOutputValidator,
  type StructuredOutputValidator,
} from "../claude-sdk/structured-output.js";
import { costOf, knownPriceOf } from "../pricing.js";
import { backendErrorOf } from "./errors.js";
import { systemPromptOf, toolFilterOf } from "./instructions.js";
import { checkAnswer } from "./read-answer.js";
import type { ModelRun } from "./run-query.js";
import { SessionStore } from "./session-store.js";
import type { ShellContext } from "./shell-tools.js";

/** What the backend reads of agent.json's `backend`. */
export type OpenaiCompatibleConfig = Pick<BackendConfig, "baseURL" | "model"> &
  Partial<
    Pick<
      BackendConfig,
      "apiKeyEnv" | "maxSteps" | "structuredOutput" | "pricing" | "passGithubToken"
    >
  >;

export interface OpenaiCompatibleOptions {
  /** closer's environment: the API key and GITHUB_API_URL are read from it. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The environment the bash tool's commands start from (docs/backends.md#environment). */
  readonly processEnv?: Readonly<Record<string, string | undefined>>;
  /** Clock in epoch milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

export const DEFAULT_MAX_STEPS = 50;

const MAX_TIMER_MS = 2_147_483_647;

/** The API key the agent names, or the auth error that says which variable to set. */
function apiKeyOf(
  config: OpenaiCompatibleConfig,
  env: Readonly<Record<string, string | undefined>>,
): { key?: string; error?: BackendError } {
  if (config.apiKeyEnv === undefined) return {};
  const key = env[config.apiKeyEnv];
  if (key !== undefined && key !== "") return { key };
  return {
    error: makeBackendError(
      "auth",
      `runner.backend.apiKeyEnv names ${config.apiKeyEnv}, which is not set in closer's environment. ` +
        `Set ${config.apiKeyEnv} to the endpoint's API key, or drop apiKeyEnv for an endpoint that needs none.`,
    ),
  };
}

/** A session this process does not hold: the loop goes on in a new one, told the summary so far. */
function unknownSession(sessionId: string | undefined): BackendError {
  return makeBackendError(
    "session_expired",
    `session ${sessionId} is not known to this closer process: the endpoint keeps no conversation, and closer keeps it in memory only`,
  );
}

/** Aborts on the run's signal or once the query's time is up, and says which came first. */
function queryStopper(request: BackendRequest) {
  const controller = new AbortController();
  let reason: "aborted" | "timeout" | undefined;
  const stop = (why: "aborted" | "timeout") => {
    reason ??= why;
    controller.abort(why);
  };
  const onAbort = () => stop("aborted");
  request.signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop("timeout"), Math.min(request.timeoutMs, MAX_TIMER_MS));
  return {
    signal: controller.signal,
    reason: () => reason,
    dispose: () => {
      clearTimeout(timer);
      request.signal.removeEventListener("abort", onAbort);
    },
  };
}

function errorOf(
  run: ModelRun,
  stoppedBy: "aborted" | "timeout" | undefined,
  request: BackendRequest,
  maxSteps: number,
): BackendError | undefined {
  if (stoppedBy === "aborted") return abortedError();
  if (stoppedBy === "timeout") return timeoutError(request.timeoutMs);
  if (run.thrown !== undefined) return backendErrorOf(run.thrown);
  if (run.stepsRanOut) {
    return makeBackendError(
      "max_turns",
      `the model used all ${maxSteps} steps of the query (runner.backend.maxSteps) without answering`,
    );
  }
  return undefined;
}

/**
 * What the bash tool's commands start with: the agent's environment, without
 * the endpoint's key — closer calls the endpoint, the model's code never does.
 */
function commandEnvironment(
  config: OpenaiCompatibleConfig,
  base: Readonly<Record<string, string | undefined>>,
  request: BackendRequest,
): Record<string, string> {
  const env = makeAgentEnvironment(base, request.env, config.passGithubToken === true);
  if (config.apiKeyEnv !== undefined) delete env[config.apiKeyEnv];
  return env;
}

/** Where the tools work and what their commands start with. */
function toolContextOf(
  request: BackendRequest,
  settings: { processEnv: Record<string, string>; githubApiUrl: string | undefined },
): ShellContext {
  return {
    root: request.cwd,
    protectedPaths: request.protectedPaths ?? [],
    env: settings.processEnv,
    ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox }),
    ...(settings.githubApiUrl === undefined ? {} : { githubApiUrl: settings.githubApiUrl }),
  };
}

/** The run as a response: the answer checked against the step's schema, the transcript, the error. */
function responseOf(
  run: ModelRun,
  context: {
    request: BackendRequest;
    error: BackendError | undefined;
    validate: StructuredOutputValidator;
  },
): Omit<BackendResponse, "durationMs"> {
  const { request, error } = context;
  const transcript: unknown[] = [...run.messages];
  let structuredOutput: unknown;
  if (request.schema !== undefined && error === undefined) {
    const answer = checkAnswer(run.candidate, request.schema, context.validate);
    if (answer.ok) structuredOutput = answer.value;
    else {
      transcript.push({
        type: "closer",
        subtype: "structured_output_invalid",
        errors: answer.problems,
      });
    }
  }
  if (error !== undefined) transcript.push({ type: "closer", subtype: "error", error });
  return {
    ...(structuredOutput === undefined ? {} : { structuredOutput }),
    text: run.candidate.via === "tool" ? JSON.stringify(run.candidate.input) : run.text,
    usage: run.usage,
    // Priced by withPricing (../pricing.ts), which makeBackend wraps this backend in.
    costUsd: 0,
    toolsUsed: run.toolsUsed,
    transcript,
    ...(error === undefined ? {} : { error }),
  };
}

export function makeOpenaiCompatibleBackend(
  config: OpenaiCompatibleConfig,
  options: OpenaiCompatibleOptions = {},
): Backend {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const sessions = new SessionStore<ModelRun["messages"][number]>();
  const validate = makeStructuredOutputValidator();
  const maxSteps = config.maxSteps ?? DEFAULT_MAX_STEPS;
  const mode = config.structuredOutput ?? "json-schema";

  return {
    name: "openai-compatible",
    enforcesSchema: true,
    async query(request: BackendRequest): Promise<BackendResponse> {
      const startedAt = now();
      if (request.signal.aborted) return errorResponse(abortedError());
      const apiKey = apiKeyOf(config, env);
      if (apiKey.error !== undefined) return errorResponse(apiKey.error);
      const model = request.model ?? config.model ?? "";
      const price: ModelPricing | undefined = config.pricing ?? knownPriceOf(model);
      const session = sessions.open(request.sessionId);
      if (session === undefined) return errorResponse(unknownSession(request.sessionId));
      const refused: string[] = [];
      const leftRunning: LeftRunningProcess[] = [];
      const stopper = queryStopper(request);
      let run: ModelRun;
      try {
        const { runModelQuery } = await import("./run-query.js");
        run = await runModelQuery({
          baseURL: config.baseURL ?? "",
          ...(apiKey.key === undefined ? {} : { apiKey: apiKey.key }),
          model,
          maxSteps,
          mode,
          system: systemPromptOf(request, mode),
          history: session.history,
          prompt: request.prompt,
          ...(request.schema === undefined ? {} : { schema: request.schema }),
          toolContext: {
            ...toolContextOf(request, {
              processEnv: commandEnvironment(config, options.processEnv ?? env, request),
              githubApiUrl: env.GITHUB_API_URL,
            }),
            signal: stopper.signal,
            onRefused: (command) => refused.push(command),
            onLeftRunning: (processes) => leftRunning.push(...processes),
          },
          offersTool: toolFilterOf(request),
          onUsage: (usage) => {
            if (price !== undefined) request.onCost?.(costOf(usage, price));
          },
          ...(request.onToolCall === undefined ? {} : { onToolCall: request.onToolCall }),
        });
      } finally {
        stopper.dispose();
      }
      const error = errorOf(run, stopper.reason(), request, maxSteps);
      if (error === undefined || error.kind === "max_turns") {
        sessions.save(session.sessionId, [...session.history, ...run.messages]);
      }
      const response = responseOf(run, { request, error, validate });
      return {
        ...response,
        sessionId: session.sessionId,
        durationMs: now() - startedAt,
        ...(refused.length === 0 ? {} : { boundaryAttempts: refused }),
        ...(leftRunning.length === 0 ? {} : { leftRunning }),
      };
    },
  };
}
