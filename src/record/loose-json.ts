import { isPlainObject } from "../plain-object.js";

/** A JSON object read from a run folder, its fields not yet trusted. */
export type Json = Record<string, unknown>;

/** `{[key]: value}` when value is a string, else nothing: for optional fields. */
export function optionalString<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return typeof value === "string" ? ({ [key]: value } as { [P in K]: string }) : {};
}

export function optionalNumber<K extends string>(key: K, value: unknown): { [P in K]?: number } {
  return typeof value === "number" ? ({ [key]: value } as { [P in K]: number }) : {};
}

export function obj(value: unknown): Json | undefined {
  return isPlainObject(value) ? value : undefined;
}

export function arrayOf(value: unknown): Json[] {
  if (!Array.isArray(value)) return [];
  return value.map(obj).filter((entry): entry is Json => entry !== undefined);
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function strings(value: unknown): string[] | undefined {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : undefined;
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
