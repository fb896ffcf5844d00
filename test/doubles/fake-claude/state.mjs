import { readFileSync, writeFileSync } from "node:fs";

/**
 * The script and what persists between processes: the index of the next turn
 * and the sessions created so far with their cumulative totals (as Claude
 * Code keeps them in a session transcript).
 * @param {string} scriptPath
 * @param {string} statePath
 */
export function loadState(scriptPath, statePath) {
  const script = JSON.parse(readFileSync(scriptPath, "utf8"));
  const turns = Array.isArray(script) ? script : (script.turns ?? []);
  const read = () => {
    try {
      return JSON.parse(readFileSync(statePath, "utf8"));
    } catch {
      return { nextTurn: 0, sessions: {} };
    }
  };
  /** @param {unknown} state */
  const write = (state) => writeFileSync(statePath, JSON.stringify(state, null, 2));

  return {
    /** @param {string} sessionId */
    hasSession(sessionId) {
      return Object.hasOwn(read().sessions, sessionId);
    },
    /** Takes the next turn of the script; undefined when the script is used up. */
    takeTurn() {
      const state = read();
      const index = state.nextTurn;
      if (index >= turns.length) return undefined;
      write({ ...state, nextTurn: index + 1 });
      return { index, turn: turns[index] };
    },
    /**
     * Adds one turn's cost and usage to the session and returns its new totals.
     * @param {string} sessionId
     * @param {number} costUsd
     * @param {Record<string, number>} usage
     */
    addToSession(sessionId, costUsd, usage) {
      const state = read();
      const previous = state.sessions[sessionId] ?? { costUsd: 0, usage: {}, turns: 0 };
      const total = {
        costUsd: previous.costUsd + costUsd,
        usage: Object.fromEntries(
          Object.entries(usage).map(([key, value]) => [key, (previous.usage[key] ?? 0) + value]),
        ),
        turns: previous.turns + 1,
      };
      write({ ...state, sessions: { ...state.sessions, [sessionId]: total } });
      return total;
    },
    /** @param {string} sessionId */
    registerSession(sessionId) {
      const state = read();
      if (Object.hasOwn(state.sessions, sessionId)) return;
      const sessions = { ...state.sessions, [sessionId]: { costUsd: 0, usage: {}, turns: 0 } };
      write({ ...state, sessions });
    },
  };
}
