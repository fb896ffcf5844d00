/**
 * One fault of the fault suite: what goes wrong, and what closer guarantees
 * when it does. README's "What closer guarantees" table is made from these
 * two texts (`npm run guarantees`), so the suite and the table cannot drift:
 * write both as plain double-quoted strings on the `fault(` call.
 */
import { it, type TestContext } from "vitest";

export interface Fault {
  /** What goes wrong, as a user or a hostile model would cause it. */
  readonly what: string;
  /** What closer does: the exit, the message, the record's state, what is kept. */
  readonly does: string;
}

export function fault(
  described: Fault,
  body: (context: TestContext) => Promise<void>,
  timeoutMs?: number,
): void {
  it(`${described.what} → ${described.does}`, body, timeoutMs);
}
