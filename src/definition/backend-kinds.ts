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

/** The keys of `runner.backend` only the `openai-compatible` kind reads (docs/backends.md#openai-compatible). */
export interface OpenaiCompatibleKeys {
  /** The endpoint's base URL up to `/v1`, e.g. `http://localhost:11434/v1`. */
  readonly baseURL?: string;
  /** The environment variable holding the API key; without it no key is sent. */
  readonly apiKeyEnv?: string;
  /** Model calls allowed in one query (default 50). */
  readonly maxSteps?: number;
  /** How the step's schema is asked for (default `json-schema`). */
  readonly structuredOutput?: "json-schema" | "tool";
}
