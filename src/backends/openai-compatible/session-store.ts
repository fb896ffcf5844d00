/**
 * The conversations of the openai-compatible backend, kept in memory: the
 * endpoint is stateless, so `session: continue` sends the previous queries'
 * messages again (docs/backends.md#openai-compatible).
 */
import { randomUUID } from "node:crypto";

/** Messages by session id, for the life of the process. */
export class SessionStore<Message> {
  readonly #sessions = new Map<string, readonly Message[]>();

  /**
   * A new session without `sessionId`; else that session and the messages it
   * holds, or undefined when this process never opened it (another process,
   * a `--resume`).
   */
  open(
    sessionId: string | undefined,
  ): { sessionId: string; history: readonly Message[] } | undefined {
    if (sessionId === undefined) {
      const opened = randomUUID();
      this.#sessions.set(opened, []);
      return { sessionId: opened, history: [] };
    }
    const history = this.#sessions.get(sessionId);
    return history === undefined ? undefined : { sessionId, history };
  }

  /** Keeps the whole conversation of a session after a query. */
  save(sessionId: string, messages: readonly Message[]): void {
    this.#sessions.set(sessionId, [...messages]);
  }
}
