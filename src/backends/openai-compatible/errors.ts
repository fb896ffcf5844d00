/**
 * What a failed call to an OpenAI-compatible endpoint means to the loop
 * (docs/backends.md#error-kinds). The AI SDK's errors are read by their
 * fields (`statusCode`, `responseHeaders`, a retry wrapper's `lastError`), so
 * this module needs no import of the SDK.
 */
import type { BackendError } from "../../ports/backend.js";
import {
  kindForErrorText,
  kindForHttpStatus,
  makeBackendError,
  refineByText,
} from "../backend-errors.js";
import { retryAfterHeaderSeconds } from "../classify-failure.js";

interface HttpFailure {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  message: string;
}

function fieldsOf(error: unknown): HttpFailure {
  if (typeof error !== "object" || error === null) return { message: String(error) };
  const fields = error as Record<string, unknown>;
  if (fields.lastError !== undefined && fields.statusCode === undefined) {
    return fieldsOf(fields.lastError);
  }
  const headers = fields.responseHeaders;
  return {
    message: typeof fields.message === "string" ? fields.message : String(error),
    ...(typeof fields.statusCode === "number" ? { statusCode: fields.statusCode } : {}),
    ...(typeof headers === "object" && headers !== null
      ? { responseHeaders: headers as Record<string, string> }
      : {}),
    ...(typeof fields.responseBody === "string" ? { responseBody: fields.responseBody } : {}),
  };
}

/** The BackendError of a failed call: by HTTP status first, else by the error's text. */
export function backendErrorOf(error: unknown, nowMs: number = Date.now()): BackendError {
  const failure = fieldsOf(error);
  const text = `${failure.message} ${failure.responseBody ?? ""}`;
  const byStatus = kindForHttpStatus(failure.statusCode);
  const kind = refineByText(byStatus ?? kindForErrorText(text) ?? "unknown", text);
  const status = failure.statusCode === undefined ? "" : ` (HTTP ${failure.statusCode})`;
  const message = `the model endpoint failed${status}: ${failure.message}`;
  if (kind === "auth") {
    return makeBackendError(
      "auth",
      `${message}. Set the key in the environment variable named by runner.backend.apiKeyEnv.`,
    );
  }
  if (failure.statusCode === 404) {
    return makeBackendError(
      "config",
      `${message}. Check runner.backend.baseURL (requests go to <baseURL>/chat/completions; ` +
        "the base URL usually ends in /v1) and runner.backend.model.",
    );
  }
  const seconds = retryAfterHeaderSeconds(failure.responseHeaders, nowMs);
  return makeBackendError(
    kind,
    message,
    seconds === undefined ? {} : { retryAfterMs: seconds * 1000 },
  );
}
