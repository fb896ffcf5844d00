import type { Serializer } from "./run-options.js";

/**
 * Runs `work` on every item with at most `limit` at once and returns the
 * results in the items' order. `work` should not throw; if it does, the pool
 * still finishes the other items before rethrowing the first error.
 */
export async function runPool<Item, Result>(
  items: readonly Item[],
  limit: number,
  work: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = new Array(items.length);
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as Item, index);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  const workers = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (errors.length > 0) throw errors[0];
  return results;
}

/** A Serializer: each task starts when the one before it has settled. */
export function makeSerializer(): Serializer {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
