/**
 * A deep copy of plain data, frozen: what a plugin is shown cannot change what the loop
 * goes on with (docs/plugins.md#integrity).
 */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
