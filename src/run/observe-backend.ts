import { hasDeclaration } from "../completion/completion-signal.js";
import { makeChannelInput, readDecisionChannels } from "../completion/decision-channels.js";
import { lastJsonObject } from "../completion/json-in-text.js";
import { summarizeIteration } from "../completion/summarize-iteration.js";
import type { CompletionSignalConfig } from "../definition/types.js";
import { isPlainObject } from "../plain-object.js";
import type { Backend, BackendRequest, BackendResponse } from "../ports.js";
import { type FileSnapshot, readOptionalFile } from "../record/read-optional-file.js";

/** A backend whose answers closer watches from outside the loop. */
export interface ObservedBackend extends Backend {
  /** The summary of the model's latest declaration (status or next action), if any. */
  lastSummary(): string | undefined;
}

export interface ObserveOptions {
  readonly completionSignal: CompletionSignalConfig;
  /** Absolute path of the decision file the agent may write. */
  readonly decisionPath: string;
  /** Called after an answer that declares completion, before the loop checks it. */
  readonly onDeclaredComplete?: () => Promise<unknown>;
}

/**
 * Wraps a backend to keep the model's summary of its work (for the completion
 * comment and commit messages) and to act between a completion declaration
 * and its checks (autoCommit). The answers themselves are passed on as given.
 */
export function observeBackend(backend: Backend, options: ObserveOptions): ObservedBackend {
  let summary: string | undefined;
  return {
    name: backend.name,
    lastSummary: () => summary,
    async query(request) {
      const before = await readQuietly(options.decisionPath);
      const response = await backend.query(request);
      if (response.error !== undefined && response.error.kind !== "max_turns") return response;
      const after = await readQuietly(options.decisionPath);
      const complete = declaresComplete(response, request, { before, after }, options);
      // A closure review's answer carries no declaration, so it never replaces the summary.
      if (complete || declares(response)) {
        summary = summarizeIteration(0, response).summary ?? summary;
      }
      if (complete && options.onDeclaredComplete !== undefined) {
        // A failure here must not read as a backend crash: the checks that follow report the tree.
        await options.onDeclaredComplete().catch(() => undefined);
      }
      return response;
    },
  };
}

/** The decision file, or undefined when it can't be read (the loop reports that itself). */
function readQuietly(path: string): Promise<FileSnapshot | undefined> {
  return readOptionalFile(path).catch(() => undefined);
}

/** True when the answer carries a declaration (a status or a next action) at all. */
function declares(response: BackendResponse): boolean {
  const output = isPlainObject(response.structuredOutput)
    ? response.structuredOutput
    : lastJsonObject(response.text, hasDeclaration);
  return output !== undefined && hasDeclaration(output);
}

/**
 * The channels the loop reads next (SPEC §4.2), with the same inputs, so an
 * answer the loop will check is the one acted on here. (The loop's
 * decideCompletion only adds the undecidable streak to this reading.)
 */
function declaresComplete(
  response: BackendResponse,
  request: BackendRequest,
  decisionFile: { before?: FileSnapshot; after?: FileSnapshot },
  options: ObserveOptions,
): boolean {
  const reading = readDecisionChannels(
    makeChannelInput(
      { response, decisionFileBefore: decisionFile.before, decisionFileAfter: decisionFile.after },
      { completionSignal: options.completionSignal, checkId: request.env.CLOSER_CHECK_ID ?? "" },
    ),
  );
  return reading.decision === "complete";
}
