/**
 * The backend kinds, written once: agent.json's schema, the `BackendKind`
 * type, the `--backend` flag and makeBackend all read this list.
 */
export const BACKEND_KINDS = [
  "claude-sdk",
  "claude-cli",
  "codex",
  "opencode",
  "openai-compatible",
  "command",
  "replay",
  "scripted",
] as const;
