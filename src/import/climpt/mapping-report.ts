import { formatJsonPath } from "../../definition/json-path.js";
import { isPlainObject } from "../../plain-object.js";

/** One key of a climpt file: where closer carries it, or why it has no equivalent. */
export interface MappingEntry {
  /** The climpt file, relative to its agent folder (`agent.json`, `steps_registry.json`, `prompts/…`). */
  readonly file: string;
  /** JSON path of the key in that file (`runner.boundaries.allowedTools`); "" for the whole file. */
  readonly from: string;
  /** The closer file and key it became (`agent.json runner.backend.allowedTools`); absent: no equivalent. */
  readonly to?: string;
  readonly note?: string;
}

type JsonPath = readonly PropertyKey[];

/**
 * What an import did with each key of one climpt file. Every key the mapping does not take
 * (`mapped` or `dropped`) is listed as having no equivalent by `finish`, so the report
 * names every key that was not carried over, whatever the file holds.
 */
export class FileMapping {
  private readonly entries: MappingEntry[] = [];
  private readonly taken = new Set<string>();

  constructor(
    readonly file: string,
    private readonly value: unknown,
  ) {}

  /** `path` became closer's `to`. */
  mapped(path: JsonPath, to: string, note?: string): void {
    this.take(path);
    this.entries.push({
      file: this.file,
      from: formatJsonPath(path),
      to,
      ...(note ? { note } : {}),
    });
  }

  /** `path` has no equivalent in closer, for the reason given. */
  dropped(path: JsonPath, note: string): void {
    this.take(path);
    this.entries.push({ file: this.file, from: formatJsonPath(path), note });
  }

  /** The entries, with a "no equivalent" entry for each key nothing took (the topmost of a subtree). */
  finish(): MappingEntry[] {
    const untaken = this.untakenPaths(this.value, []).map((path) => ({
      file: this.file,
      from: formatJsonPath(path),
      note: "no equivalent in closer",
    }));
    return [...this.entries, ...untaken];
  }

  private take(path: JsonPath): void {
    this.taken.add(JSON.stringify(path));
  }

  private isTaken(path: JsonPath): boolean {
    return this.taken.has(JSON.stringify(path));
  }

  /** Paths under `path` that neither are taken nor lie under a taken path. */
  private untakenPaths(value: unknown, path: PropertyKey[]): PropertyKey[][] {
    if (this.isTaken(path)) return [];
    const children = isPlainObject(value) ? Object.entries(value) : [];
    const below = children.flatMap(([key, child]) => this.untakenPaths(child, [...path, key]));
    if (path.length === 0) return below;
    const anyTakenBelow = [...this.taken].some((taken) =>
      taken.startsWith(JSON.stringify(path).slice(0, -1)),
    );
    return anyTakenBelow ? below : [path];
  }
}

/** The report of one import, as `closer import climpt` prints it. */
export interface ImportReport {
  /** Absolute path of the climpt agent folder read. */
  readonly source: string;
  /** Absolute path of the closer agent folder written. */
  readonly out: string;
  readonly name: string;
  readonly mapped: readonly MappingEntry[];
  readonly unmapped: readonly MappingEntry[];
}

/** The report's text: what each key became, then what has no equivalent. */
export function describeImportReport(report: ImportReport): string {
  const line = (entry: MappingEntry) =>
    `  ${entry.file}${entry.from ? ` ${entry.from}` : ""}${entry.to ? ` → ${entry.to}` : ""}${
      entry.note ? ` (${entry.note})` : ""
    }`;
  return [
    `Imported climpt agent ${report.source} into ${report.out}`,
    "",
    `Mapped (${report.mapped.length}):`,
    ...report.mapped.map(line),
    "",
    `No equivalent in closer, not carried over (${report.unmapped.length}):`,
    ...report.unmapped.map(line),
    "",
  ].join("\n");
}
