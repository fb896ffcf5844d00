/**
 * Tool use as Claude Code does it: PreToolUse hooks first, then the
 * permission rules and mode, then a permission prompt (`can_use_tool`) when
 * the host offers one; an allowed tool really runs in the working directory.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const READ_ONLY_TOOLS = new Set(["Read", "Glob", "Grep", "LS", "TodoWrite"]);
const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

/**
 * `Bash` matches the tool; `Bash(npm test)` the exact command; `Bash(gh issue:*)` a prefix.
 * @param {string} rule
 * @param {string} tool
 * @param {Record<string, unknown>} input
 */
function matchesRule(rule, tool, input) {
  const open = rule.indexOf("(");
  if (open < 0) return rule === tool;
  if (rule.slice(0, open) !== tool || !rule.endsWith(")")) return false;
  const pattern = rule.slice(open + 1, -1);
  const subject = String(input.command ?? input.file_path ?? input.url ?? "");
  return pattern.endsWith(":*") ? subject.startsWith(pattern.slice(0, -2)) : subject === pattern;
}

/**
 * @param {string | undefined} matcher
 * @param {string} tool
 */
function matcherApplies(matcher, tool) {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  return new RegExp(`^(?:${matcher})$`).test(tool);
}

/** PreToolUse hooks registered in the initialize request; undefined when none decided. */
async function askHooks(context, io, call) {
  const matchers = io.hooks?.PreToolUse ?? [];
  for (const matcher of matchers) {
    if (!matcherApplies(matcher.matcher, call.tool)) continue;
    for (const callbackId of matcher.hookCallbackIds ?? []) {
      const input = {
        hook_event_name: "PreToolUse",
        session_id: call.sessionId,
        transcript_path: "",
        cwd: context.cwd,
        permission_mode: context.options.permissionMode,
        tool_name: call.tool,
        tool_input: call.input,
        tool_use_id: call.toolUseId,
      };
      const answer = await io.request({
        subtype: "hook_callback",
        callback_id: callbackId,
        input,
        tool_use_id: call.toolUseId,
      });
      context.log({ event: "hook", callbackId, tool: call.tool, answer });
      const specific = answer?.hookSpecificOutput;
      if (specific?.permissionDecision === "deny" || answer?.decision === "block") {
        const message = specific?.permissionDecisionReason ?? answer?.reason ?? "Blocked by hook";
        return { behavior: "deny", message, via: "hook" };
      }
      if (specific?.permissionDecision === "allow" || answer?.decision === "approve") {
        return { behavior: "allow", input: specific?.updatedInput ?? call.input, via: "hook" };
      }
    }
  }
  return undefined;
}

async function decide(context, io, call) {
  const fromHooks = await askHooks(context, io, call);
  if (fromHooks) return fromHooks;
  const { options } = context;
  const allow = (via) => ({ behavior: "allow", input: call.input, via });
  const deny = (message, via) => ({ behavior: "deny", message, via });
  if (options.disallowedTools.some((rule) => matchesRule(rule, call.tool, call.input))) {
    return deny(`Permission to use ${call.tool} has been denied.`, "rule");
  }
  if (options.permissionMode === "bypassPermissions") return allow("mode");
  if (options.allowedTools.some((rule) => matchesRule(rule, call.tool, call.input))) {
    return allow("rule");
  }
  if (READ_ONLY_TOOLS.has(call.tool)) return allow("read-only");
  if (options.permissionMode === "acceptEdits" && EDIT_TOOLS.has(call.tool)) return allow("mode");
  if (options.permissionMode === "plan")
    return deny("Plan mode: tools that change things are not run.", "mode");
  if (options.permissionMode === "dontAsk") {
    return deny(
      `Permission to use ${call.tool} has been denied because Claude Code is running in don't ask mode.`,
      "mode",
    );
  }
  if (options.permissionPromptTool === "stdio" && io.request) {
    const answer = await io.request({
      subtype: "can_use_tool",
      tool_name: call.tool,
      input: call.input,
      tool_use_id: call.toolUseId,
      permission_suggestions: [],
    });
    return answer?.behavior === "allow"
      ? { behavior: "allow", input: answer.updatedInput ?? call.input, via: "can_use_tool" }
      : deny(answer?.message ?? "Denied", "can_use_tool");
  }
  return deny(
    `Claude requested permissions to use ${call.tool}, but you haven't granted it yet.`,
    "no-prompt",
  );
}

/** Runs a shell command in the working directory, as the Bash tool does. */
function runShell(context, command) {
  return new Promise((done) => {
    const child = spawn("sh", ["-c", command], {
      cwd: context.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    context.log({ event: "child", childPid: child.pid, command });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => done({ content: output, isError: code !== 0 }));
    child.on("error", (error) => done({ content: String(error), isError: true }));
  });
}

async function execute(context, tool, input) {
  const path = typeof input.file_path === "string" ? resolve(context.cwd, input.file_path) : "";
  try {
    switch (tool) {
      case "Bash":
        return await runShell(context, String(input.command ?? ""));
      case "Write":
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, String(input.content ?? ""));
        return { content: `File created successfully at: ${path}`, isError: false };
      case "Edit": {
        const before = readFileSync(path, "utf8");
        const oldText = String(input.old_string ?? "");
        if (!before.includes(oldText))
          return { content: "String to replace not found in file.", isError: true };
        writeFileSync(path, before.replace(oldText, String(input.new_string ?? "")));
        return { content: `The file ${path} has been updated.`, isError: false };
      }
      case "Read":
        return { content: readFileSync(path, "utf8"), isError: false };
      default:
        return { content: "ok", isError: false };
    }
  } catch (error) {
    return { content: String(error), isError: true };
  }
}

/**
 * Decides and runs one tool call; the answer and the outcome are logged.
 * @returns {Promise<{ content: string, isError: boolean, denied: boolean }>}
 */
export async function useTool(context, io, call) {
  const decision = await decide(context, io, call);
  context.log({
    event: "permission",
    tool: call.tool,
    input: call.input,
    behavior: decision.behavior,
    message: decision.message,
    via: decision.via,
  });
  if (decision.behavior === "deny")
    return { content: decision.message, isError: true, denied: true };
  const outcome = await execute(context, call.tool, decision.input);
  return { ...outcome, denied: false };
}
