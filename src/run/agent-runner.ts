import { type AgentResult, runAgent } from "../loop/index.js";
import { type AgentRunOptions, resolveRunSettings } from "./make-run-settings.js";

/**
 * The Runner of docs/loop.md#settings, for callers that prefer an object: the loop alone in
 * the project folder (`runTask` and `runIssue` add the worktree and side effects).
 */
export class AgentRunner {
  async run(options: AgentRunOptions): Promise<AgentResult> {
    return runAgent(await resolveRunSettings(options));
  }
}
