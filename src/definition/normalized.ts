import type { CloserError } from "../errors.js";

/** A normalized value and the problems found on the way (empty when all is well). */
export interface Normalized<T> {
  readonly value: T;
  readonly problems: readonly CloserError[];
}
