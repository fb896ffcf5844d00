/** Values of a recorded event read as what they should be, with a default. */

export function numberOf(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
}
