/**
 * One query of the openai-compatible backend: the AI SDK's `generateText`
 * running closer's tool loop against the endpoint
 * (docs/backends.md#openai-compatible). Loaded on the first query, with the SDK.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  generateText,
  hasToolCall,
  type ModelMessage,
  type StepResult,
  stepCountIs,
  type ToolSet,
} from "ai";
import type { ToolActivity, ToolCall, Usage } from "../../ports/backend.js";
import type { JsonSchema } from "../../ports/runner-config.js";
import { nameToolCall } from "../tool-calls/name-tool-call.js";
import {
  ANSWER_TOOL,
  answerTool,
  jsonSchemaOutput,
  type StructuredOutputMode,
} from "./answer-channel.js";
import type { AnswerCandidate } from "./read-answer.js";
import type { ShellContext } from "./shell-tools.js";
import { makeToolSet } from "./tool-set.js";
import { addUsage, NO_USAGE, usageOfStep } from "./usage.js";

export interface ModelQuery {
  readonly baseURL: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly maxSteps: number;
  readonly mode: StructuredOutputMode;
  readonly system: string;
  readonly history: readonly ModelMessage[];
  readonly prompt: string;
  readonly schema?: JsonSchema;
  /** Where and how the tools work; its `signal` stops a running command too. */
  readonly toolContext: ShellContext & { readonly signal: AbortSignal };
  /** The work tools the model is offered, by name. */
  readonly offersTool: (name: string) => boolean;
  /** Hears the usage of the query so far after each model call. */
  readonly onUsage: (usageSoFar: Usage) => void;
  /** Hears each tool call as it starts and ends (docs/observe.md#tool-calls). */
  readonly onToolCall?: (activity: ToolActivity) => void;
}

export interface ModelRun {
  /** This query's messages: the prompt and every message after it. */
  readonly messages: readonly ModelMessage[];
  readonly text: string;
  readonly candidate: AnswerCandidate;
  readonly usage: Usage;
  readonly toolsUsed: readonly string[];
  /** The last model call asked for tools and the step limit stopped the loop. */
  readonly stepsRanOut: boolean;
  readonly thrown?: unknown;
}

function toolsFor(query: ModelQuery, used: string[]): ToolSet {
  const work = makeToolSet(query.toolContext, (name, input, callId) => {
    used.push(name);
    const call = nameToolCall(callId, name, input);
    query.onToolCall?.({ phase: "start", call });
    return (answer) => query.onToolCall?.(endOf(call, answer));
  });
  const offered: ToolSet = Object.fromEntries(
    Object.entries(work).filter(([name]) => query.offersTool(name)),
  );
  if (query.schema !== undefined && query.mode === "tool") {
    offered[ANSWER_TOOL] = answerTool(query.schema);
  }
  return offered;
}

/** How a call went, from the tool's answer: `error: …` for a failure, `exit code N` first for a command. */
function endOf(call: ToolCall, answer: string): ToolActivity {
  const exit = /^exit code (\d+)/.exec(answer);
  const exitCode = exit === null ? undefined : Number(exit[1]);
  const failed = answer.startsWith("error:") || (call.action === "command" && exitCode !== 0);
  return { phase: "end", call, failed, ...(exitCode === undefined ? {} : { exitCode }) };
}

/** The answer tool's call gets a result, so the conversation can be sent again under `continue`. */
function withAnswerReceived(messages: ModelMessage[], toolCallId: string): ModelMessage[] {
  return [
    ...messages,
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId,
          toolName: ANSWER_TOOL,
          output: { type: "text", value: "answer received" },
        },
      ],
    },
  ];
}

function candidateOf(last: StepResult<ToolSet> | undefined): AnswerCandidate {
  if (last === undefined) return { via: "none" };
  const call = last.toolCalls.find((toolCall) => toolCall.toolName === ANSWER_TOOL);
  if (call !== undefined) return { via: "tool", input: call.input };
  if (last.finishReason === "tool-calls" || last.text.trim() === "") return { via: "none" };
  return { via: "text", text: last.text };
}

export async function runModelQuery(query: ModelQuery): Promise<ModelRun> {
  const toolsUsed: string[] = [];
  const steps: StepResult<ToolSet>[] = [];
  let usage = NO_USAGE;
  const userMessage: ModelMessage = { role: "user", content: query.prompt };
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: query.baseURL,
    ...(query.apiKey === undefined ? {} : { apiKey: query.apiKey }),
    supportsStructuredOutputs: true,
    includeUsage: true,
  });
  let thrown: unknown;
  try {
    await generateText({
      model: provider.chatModel(query.model),
      system: query.system,
      messages: [...query.history, userMessage],
      tools: toolsFor(query, toolsUsed),
      stopWhen: [stepCountIs(query.maxSteps), hasToolCall(ANSWER_TOOL)],
      // closer's loop owns retries and rate-limit waits (docs/loop.md#rule-4).
      maxRetries: 0,
      abortSignal: query.toolContext.signal,
      ...(query.schema !== undefined && query.mode === "json-schema"
        ? { output: jsonSchemaOutput(query.schema) }
        : {}),
      onStepFinish: (step) => {
        steps.push(step);
        usage = addUsage(usage, usageOfStep(step.usage));
        query.onUsage(usage);
      },
    });
  } catch (error) {
    thrown = error;
  }
  const last = steps.at(-1);
  const candidate = candidateOf(last);
  let messages: ModelMessage[] = [userMessage, ...(last?.response.messages ?? [])];
  const answerCall = last?.toolCalls.find((toolCall) => toolCall.toolName === ANSWER_TOOL);
  if (answerCall !== undefined) messages = withAnswerReceived(messages, answerCall.toolCallId);
  return {
    messages,
    text: last?.text ?? "",
    candidate,
    usage,
    toolsUsed,
    stepsRanOut:
      thrown === undefined &&
      last?.finishReason === "tool-calls" &&
      answerCall === undefined &&
      steps.length >= query.maxSteps,
    ...(thrown === undefined ? {} : { thrown }),
  };
}
