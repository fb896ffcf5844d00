import { type Source, targets } from "./map-steps.js";
import type { FileMapping } from "./mapping-report.js";

/** The flow steps of a registry in climpt's spelling (none in the seeds'), and its closure steps. */
export interface Flow {
  readonly steps: readonly Source[];
  readonly closureIds: ReadonlySet<string>;
}

/**
 * climpt's `status` reports each step's progress (`completed` after any step's work); its flow
 * ends on an intent that leads to `null` (`closing`) or from a work step to a closure step
 * (`handoff`). Among the steps reachable from the entry step, those intents are closer's
 * completion actions and `status` declares nothing (docs/cli.md#import-climpt). An intent that
 * also leads from a reachable step to another work step stays out, and is reported. A flow of
 * closure steps alone keeps closer's defaults; undefined then.
 */
export function completionSignalOf(
  flow: Flow,
  entryStep: string | undefined,
  mapping: FileMapping,
) {
  const { closureIds } = flow;
  if (flow.steps.every((step) => closureIds.has(step.id))) return undefined;
  const reachable = reachableFrom(entryStep, flow.steps);
  const ends = (from: string, target: string | null | undefined) =>
    target === null || (target !== undefined && closureIds.has(target) && !closureIds.has(from));
  const ending = new Set<string>();
  const elsewhere = new Map<string, Source>();
  for (const step of reachable) {
    for (const [intent, target] of targets(step.value)) {
      if (ends(step.id, target)) ending.add(intent);
      else if (target !== undefined && target !== step.id && !closureIds.has(step.id)) {
        elsewhere.set(intent, step);
      }
    }
  }
  for (const [intent, step] of elsewhere) {
    if (!ending.has(intent)) continue;
    ending.delete(intent);
    mapping.dropped(
      [...step.at, "transitions", intent],
      `${intent} also leads to another work step here, so closer cannot read it as a declaration`,
    );
  }
  return { status: [], action: [...ending].sort() };
}

function reachableFrom(entryStep: string | undefined, steps: readonly Source[]): Source[] {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const seen = new Set<string>();
  const queue = entryStep === undefined ? [] : [entryStep];
  while (queue.length > 0) {
    const id = queue.shift() ?? "";
    const step = byId.get(id);
    if (step === undefined || seen.has(id)) continue;
    seen.add(id);
    for (const [, target] of targets(step.value))
      if (typeof target === "string") queue.push(target);
  }
  return steps.filter((step) => seen.has(step.id));
}
