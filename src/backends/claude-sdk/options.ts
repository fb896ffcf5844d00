/** The SDK `Options` of one query, built from a BackendRequest and the backend's configuration. */
import type {
  HookCallback,
  Options,
  SettingSource,
  SpawnedProcess,
  SpawnOptions,
} from "@anthropic-ai/claude-agent-sdk";
import type { BackendRequest } from "../../ports/backend.js";
import { makeAgentEnvironment } from "../../process/agent-environment.js";
import { boundaryDenial } from "../boundary.js";
import { protectedPathDenial } from "../protected-paths.js";

export interface SdkOptionsContext {
  readonly executablePath: string;
  /** Closer's own environment; the executable gets this plus `request.env`, without GitHub tokens. */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Keep the GitHub tokens of `baseEnv` (`runner.backend.passGithubToken`). */
  readonly keepGithubToken: boolean;
  /** closer's GitHub API address, which the boundary hook refuses calls to. */
  readonly githubApiUrl: string | undefined;
  readonly settingSources: readonly SettingSource[];
  readonly maxTurns?: number;
  readonly abortController: AbortController;
  readonly spawn: (options: SpawnOptions) => SpawnedProcess;
}

/**
 * A PreToolUse hook that vetoes GitHub side effects (docs/worktrees-and-github.md#github-boundary) and
 * writes to protected paths (docs/integrity.md#protected-paths). A hook,
 * unlike `canUseTool`, is consulted in every permission mode and for
 * pre-approved tools too.
 */
function makeBoundaryHook(request: BackendRequest, githubApiUrl: string | undefined): HookCallback {
  return async (input) => {
    if (input.hook_event_name !== "PreToolUse") return {};
    const denial =
      boundaryDenial(input.tool_name, input.tool_input, githubApiUrl) ??
      protectedPathDenial(
        input.tool_name,
        input.tool_input,
        request.cwd,
        request.protectedPaths ?? [],
      );
    if (denial === undefined) return {};
    return {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: denial,
      },
    };
  };
}

function mergeEnv(
  base: Readonly<Record<string, string | undefined>>,
  added: Readonly<Record<string, string>>,
  keepGithubToken: boolean,
): Record<string, string> {
  const env = makeAgentEnvironment(base, added, keepGithubToken);
  env.CLAUDE_AGENT_SDK_CLIENT_APP ??= "closer";
  return env;
}

export function buildSdkOptions(request: BackendRequest, context: SdkOptionsContext): Options {
  // The SDK replaces the environment rather than merging it, so closer's own is spread in.
  const env = mergeEnv(context.baseEnv, request.env, context.keepGithubToken);
  const options: Options = {
    abortController: context.abortController,
    cwd: request.cwd,
    env,
    pathToClaudeCodeExecutable: context.executablePath,
    spawnClaudeCodeProcess: context.spawn,
    allowedTools: [...request.allowedTools],
    disallowedTools: [...request.disallowedTools],
    permissionMode: request.permissionMode,
    systemPrompt: {
      type: "preset",
      preset: "claude_code",
      ...(request.systemPrompt ? { append: request.systemPrompt } : {}),
    },
    settingSources: [...context.settingSources],
    hooks: {
      PreToolUse: [
        { hooks: [makeBoundaryHook(request, context.githubApiUrl ?? env.GITHUB_API_URL)] },
      ],
    },
  };
  if (request.permissionMode === "bypassPermissions")
    options.allowDangerouslySkipPermissions = true;
  if (request.model !== undefined) options.model = request.model;
  if (request.sessionId !== undefined) options.resume = request.sessionId;
  if (request.schema !== undefined) {
    options.outputFormat = { type: "json_schema", schema: request.schema };
  }
  if (context.maxTurns !== undefined) options.maxTurns = context.maxTurns;
  return options;
}
