import { isPlainObject } from "../../plain-object.js";
import { RETRY_VARIABLES, RUNNER_VARIABLES } from "../../prompts/variables.js";
import type { FileMapping } from "./mapping-report.js";

type Json = Record<string, unknown>;

const PARAMETER_TYPES = new Set(["string", "number", "boolean"]);
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FLAG = /^--[A-Za-z0-9][A-Za-z0-9-]*$/;
const PERMISSION_MODES = new Set([
  "acceptEdits",
  "default",
  "bypassPermissions",
  "plan",
  "dontAsk",
]);
const CLOSE_ACTIONS = new Set(["close", "label-only", "label-and-close"]);
const DEFAULT_SYSTEM_PROMPT = "prompts/system.md";

/** What the registry mapping needs from agent.json. */
export interface AgentJsonFacts {
  /** runner.verdict.type: the key of the registry's entryStepMapping that names the first step. */
  readonly verdictType?: string;
  /** The registry file, relative to the climpt agent folder. */
  readonly registryFile: string;
  readonly parameterNames: readonly string[];
}

/**
 * climpt's agent.json (`runner.flow`, `runner.verdict`, `runner.boundaries`,
 * `runner.integrations`, `parameters.*.cli`) as closer's agent.json named `name`
 * (docs/cli.md#import-climpt).
 */
export function mapAgentJson(
  source: Json,
  name: string,
  mapping: FileMapping,
  closerFlags: ReadonlySet<string>,
): { agentJson: Json; facts: AgentJsonFacts } {
  if (source.name !== undefined) {
    mapping.mapped(["name"], "agent.json name", "the name of the folder written");
  }
  const agentJson: Json = { name };
  if (typeof source.description === "string") {
    agentJson.description = source.description;
    mapping.mapped(["description"], "agent.json description");
  }
  const parameters = mapParameters(source.parameters, mapping, closerFlags);
  agentJson.parameters = parameters;
  const runner = isPlainObject(source.runner) ? source.runner : {};
  const flow = isPlainObject(runner.flow) ? runner.flow : {};
  const prompts = isPlainObject(flow.prompts) ? flow.prompts : {};
  const registryFile =
    typeof prompts.registry === "string" ? prompts.registry : "steps_registry.json";
  if (typeof prompts.registry === "string") {
    mapping.mapped(
      ["runner", "flow", "prompts", "registry"],
      "steps_registry.json (read and mapped)",
    );
  }
  const closerRunner: Json = {
    backend: { kind: "claude-sdk", ...mapBoundaries(runner.boundaries, mapping) },
  };
  if (typeof flow.systemPromptPath === "string") {
    mapSystemPrompt(flow.systemPromptPath, closerRunner, mapping);
  }
  const verdict = isPlainObject(runner.verdict) ? runner.verdict : {};
  const verdictType = typeof verdict.type === "string" ? verdict.type : undefined;
  if (verdictType !== undefined) {
    mapping.mapped(
      ["runner", "verdict", "type"],
      "steps_registry.json entryStep",
      "the step entryStepMapping names for it",
    );
  }
  const verdictConfig = isPlainObject(verdict.config) ? verdict.config : {};
  if (Number.isInteger(verdictConfig.maxIterations) && Number(verdictConfig.maxIterations) >= 1) {
    closerRunner.maxIterations = verdictConfig.maxIterations;
    mapping.mapped(
      ["runner", "verdict", "config", "maxIterations"],
      "agent.json runner.maxIterations",
    );
  }
  Object.assign(closerRunner, mapIntegrations(runner.integrations, mapping));
  Object.assign(closerRunner, mapWorktree(runner.execution, mapping));
  agentJson.runner = closerRunner;
  const facts = {
    ...(verdictType === undefined ? {} : { verdictType }),
    registryFile,
    parameterNames: Object.keys(parameters),
  };
  return { agentJson, facts };
}

/** A system prompt inside prompts/ is copied with it; closer reads prompts/system.md unless told. */
function mapSystemPrompt(file: string, closerRunner: Json, mapping: FileMapping): void {
  const at = ["runner", "flow", "systemPromptPath"];
  const words = file.split("/");
  if (file === DEFAULT_SYSTEM_PROMPT) {
    mapping.mapped(at, "prompts/system.md (copied)");
  } else if (words[0] === "prompts" && !words.includes("..") && !words.includes("")) {
    closerRunner.systemPrompt = file;
    mapping.mapped(at, "agent.json runner.systemPrompt (the file copied)");
  } else {
    mapping.dropped(at, "only prompts/ is copied; put the system prompt in prompts/system.md");
  }
}

/** The one closer option whose value a parameter of the same flag also gets. */
const SHARED_FLAG = "--issue";

function mapParameters(
  source: unknown,
  mapping: FileMapping,
  closerFlags: ReadonlySet<string>,
): Json {
  if (!isPlainObject(source)) return {};
  const reserved = new Set([...RUNNER_VARIABLES, ...RETRY_VARIABLES]);
  const parameters: Json = {};
  for (const [key, value] of Object.entries(source)) {
    const at = ["parameters", key];
    if (!isPlainObject(value) || !PARAMETER_TYPES.has(String(value.type))) {
      mapping.dropped(at, "closer parameters are string, number or boolean");
      continue;
    }
    if (!PARAMETER_NAME.test(key) || reserved.has(key)) {
      mapping.dropped(
        at,
        "the name is not free for a closer parameter (docs/definition.md#parameters)",
      );
      continue;
    }
    const given = value.cli ?? value.flag;
    const flag = typeof given === "string" ? given : `--${key}`;
    if (closerFlags.has(flag) && flag !== SHARED_FLAG) {
      mapping.mapped(at, `closer run ${flag}`, "closer's own option of that flag");
      continue;
    }
    const parameter: Json = { type: value.type };
    mapping.mapped([...at, "type"], `agent.json parameters.${key}.type`);
    for (const field of ["description", "required", "default"] as const) {
      const fits =
        field === "description"
          ? typeof value[field] === "string"
          : field === "required"
            ? typeof value[field] === "boolean"
            : typeof value[field] === value.type;
      if (value[field] !== undefined && fits) {
        parameter[field] = value[field];
        mapping.mapped([...at, field], `agent.json parameters.${key}.${field}`);
      }
    }
    const flagKey = typeof value.cli === "string" ? "cli" : "flag";
    if (FLAG.test(String(value[flagKey]))) {
      parameter.flag = value[flagKey];
      mapping.mapped([...at, flagKey], `agent.json parameters.${key}.flag`);
    }
    parameters[key] = parameter;
  }
  return parameters;
}

function mapBoundaries(source: unknown, mapping: FileMapping): Json {
  if (!isPlainObject(source)) return {};
  const backend: Json = {};
  for (const field of ["allowedTools", "disallowedTools"] as const) {
    const tools = source[field];
    if (Array.isArray(tools) && tools.every((tool) => typeof tool === "string")) {
      backend[field] = tools;
      mapping.mapped(["runner", "boundaries", field], `agent.json runner.backend.${field}`);
    }
  }
  if (PERMISSION_MODES.has(String(source.permissionMode))) {
    backend.permissionMode = source.permissionMode;
    mapping.mapped(
      ["runner", "boundaries", "permissionMode"],
      "agent.json runner.backend.permissionMode",
    );
  }
  return backend;
}

function mapIntegrations(source: unknown, mapping: FileMapping): Json {
  const github = isPlainObject(source) && isPlainObject(source.github) ? source.github : undefined;
  if (github === undefined) return {};
  const at = ["runner", "integrations", "github"];
  const closerGithub: Json = {};
  const labels = isPlainObject(github.labels) ? github.labels : {};
  const completion = isPlainObject(labels.completion) ? labels.completion : {};
  const closerLabels: Json = {};
  for (const field of ["add", "remove"] as const) {
    const names = completion[field];
    if (Array.isArray(names) && names.every((label) => typeof label === "string")) {
      closerLabels[field] = names;
      mapping.mapped(
        [...at, "labels", "completion", field],
        `agent.json runner.github.labels.${field}`,
      );
    }
  }
  if (Object.keys(closerLabels).length > 0) closerGithub.labels = closerLabels;
  if (CLOSE_ACTIONS.has(String(github.defaultClosureAction))) {
    closerGithub.closeAction = github.defaultClosureAction;
    mapping.mapped([...at, "defaultClosureAction"], "agent.json runner.github.closeAction");
  }
  return Object.keys(closerGithub).length > 0 ? { github: closerGithub } : {};
}

function mapWorktree(source: unknown, mapping: FileMapping): Json {
  const worktree =
    isPlainObject(source) && isPlainObject(source.worktree) ? source.worktree : undefined;
  if (worktree === undefined) return {};
  const at = ["runner", "execution", "worktree"];
  const closerWorktree: Json = {};
  if (typeof worktree.enabled === "boolean") {
    closerWorktree.enabled = worktree.enabled;
    mapping.mapped([...at, "enabled"], "agent.json runner.worktree.enabled");
  }
  const root = worktree.root;
  if (typeof root === "string" && root !== "") {
    if (root.startsWith("/") || root.split(/[\\/]/).includes("..")) {
      mapping.dropped(
        [...at, "root"],
        "closer keeps its worktrees inside the repository (default .closer/worktrees)",
      );
    } else {
      closerWorktree.root = root;
      mapping.mapped([...at, "root"], "agent.json runner.worktree.root");
    }
  }
  return { worktree: closerWorktree };
}
