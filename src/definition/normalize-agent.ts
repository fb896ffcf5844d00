import path from "node:path";
import { CloserError } from "../errors.js";
import type { ParameterDefinition } from "../ports/agent.js";
import type { RunnerConfig } from "../ports/runner-config.js";
import type { AgentFile } from "./agent-file-schema.js";
import type { Normalized } from "./normalized.js";

/** Where agent.json lives and what its folder is called. */
export interface AgentContext {
  /** The agent's folder name under `.agent/`. */
  readonly name: string;
  /** Absolute path of the agent folder. */
  readonly dir: string;
  /** Absolute path of agent.json, for messages. */
  readonly file: string;
}

/** agent.json in the shape of ResolvedAgent, plus what the registry needs from it. */
export interface NormalizedAgentFile {
  readonly description: string;
  readonly parameters: Readonly<Record<string, ParameterDefinition>>;
  readonly runner: RunnerConfig;
  /** Absolute path of the steps registry. */
  readonly registryFile: string;
  /** runner.entryStep, which wins over the registry's entryStep. */
  readonly entryStep?: string;
}

/** Turns a validated agent.json into resolved types: paths made absolute, names made plain. */
export function normalizeAgentFile(
  file: AgentFile,
  context: AgentContext,
): Normalized<NormalizedAgentFile> {
  const problems: CloserError[] = [];
  if (file.name !== context.name) {
    problems.push(
      new CloserError(
        "validation_error",
        `the name "${file.name}" differs from the agent's folder name "${context.name}"`,
        {
          file: context.file,
          jsonPath: "name",
          expected: JSON.stringify(context.name),
          found: JSON.stringify(file.name),
          fix: `set "name" to "${context.name}" or rename the folder`,
        },
      ),
    );
  }
  const runner = file.runner;
  return {
    value: {
      description: file.description,
      parameters: normalizeParameters(file.parameters),
      runner: {
        backend: normalizeBackend(runner.backend),
        setup: { commands: [...runner.setup], timeoutMs: runner.setupTimeoutMs },
        env: {
          pass: [...runner.env.pass],
          backend: [...runner.env.backend],
          validators: [...runner.env.validators],
        },
        systemPromptPath: path.resolve(context.dir, runner.systemPrompt),
        maxIterations: runner.maxIterations,
        budgets: { ...runner.budgets },
        worktree: {
          enabled: runner.worktree.enabled,
          root: runner.worktree.root,
          branchTemplate: runner.worktree.branch,
          onSuccess: runner.worktree.onSuccess ?? "merge",
          ...(runner.worktree.onSuccess === undefined ? {} : { onSuccessSet: true }),
          autoCommit: runner.worktree.autoCommit,
        },
        git: { hooks: runner.git.hooks },
        github: {
          labels: { add: [...runner.github.labels.add], remove: [...runner.github.labels.remove] },
          closeAction: runner.github.closeAction,
          completionComment: runner.github.completionComment,
          failureComment: runner.github.failureComment,
        },
        logging: { ...runner.logging },
        record: { maxFieldBytes: runner.record.maxFieldBytes },
        sandbox: {
          mode: runner.sandbox.mode,
          allowWrite: [...runner.sandbox.allowWrite],
          denyRead: [...runner.sandbox.denyRead],
          allowedDomains: [...runner.sandbox.allowedDomains],
          validatorDomains: [...runner.sandbox.validatorDomains],
          registries: runner.sandbox.registries,
          ignoreRefusals: [...runner.sandbox.ignoreRefusals],
        },
        maxUndecidable: runner.maxUndecidable,
        ...(runner.decisionFile === undefined ? {} : { decisionFile: runner.decisionFile }),
      },
      registryFile: path.resolve(context.dir, runner.registry),
      ...(runner.entryStep === undefined ? {} : { entryStep: runner.entryStep }),
    },
    problems,
  };
}

function normalizeParameters(
  parameters: AgentFile["parameters"],
): Record<string, ParameterDefinition> {
  return Object.fromEntries(
    Object.entries(parameters).map(([name, parameter]) => [
      name,
      {
        name,
        type: parameter.type,
        required: parameter.required,
        ...(parameter.default === undefined ? {} : { default: parameter.default }),
        flag: parameter.flag ?? `--${name}`,
        description: parameter.description,
      },
    ]),
  );
}

export function normalizeBackend(backend: AgentFile["runner"]["backend"]): RunnerConfig["backend"] {
  const { session, allowedTools, disallowedTools, settingSources, command, ...rest } = backend;
  return {
    ...rest,
    allowedTools: [...allowedTools],
    disallowedTools: [...disallowedTools],
    sessionPolicy: session,
    settingSources: [...settingSources],
    ...(command === undefined ? {} : { command: [...command] }),
  };
}
