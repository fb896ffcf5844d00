import type { Backend, BackendRequest } from "../ports/backend.js";
import type { JsonSchema } from "../ports/runner-config.js";

/** One query of an iteration. */
export interface Query {
  readonly iteration: number;
  readonly prompt: string;
  readonly schema?: JsonSchema;
  readonly checkId: string;
  /** Why it is sent (docs/observe.md#receipts); its repeats go as `repeat:<error kind>`. */
  readonly reason: string;
  readonly model?: string;
  /** Names an extra query of the iteration in the record (e.g. `closure-review`). */
  readonly label?: string;
  /** A session of its own: none of the run's history, and the run keeps its session (the closure review). */
  readonly freshSession?: boolean;
  /** Another backend than the run's, with its own model (a closure review's). */
  readonly backend?: { readonly backend: Backend; readonly model?: string };
  /** Tools in place of the runner's (the closure review's read-only ones). */
  readonly tools?: Pick<BackendRequest, "allowedTools" | "disallowedTools" | "permissionMode">;
}
