/**
 * The conversations of the openai-compatible backend, kept in memory: the
 * endpoint is stateless, so `session: continue` sends the previous queries'
 * messages again (docs/backends.md#openai-compatible).
 */
import { randomUUID } from "node:crypto";

/** Messages by session id; a session unknown here (another process, a resume) starts empty. */
export class SessionStore<Message> {
  readonly #sessions = new Map<string, readonly Message[]>();

  /** The session to use and the messages it already holds: a new one without `sessionId`. */
  open(sessionId: string | undefined): { sessionId: string; history: readonly Message[] } {
    if (sessionId !== undefined) {
      return { sessionId, history: this.#sessions.get(sessionId) ?? [] };
    }
    return { sessionId: randomUUID(), history: [] };
  }

  /** Keeps the whole conversation of a session after a query. */
  save(sessionId: string, messages: readonly Message[]): void {
    this.#sessions.set(sessionId, [...messages]);
  }
}
