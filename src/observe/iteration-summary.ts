/**
 * What the model said it did in an iteration (docs/report.md#report): its declaration's summary,
 * else the final text of its query, as the iteration's transcripts hold them
 * (docs/record.md#prompts-and-transcripts).
 */
import { turnFromTranscript } from "../backends/replay/transcript-turn.js";
import { isPlainObject } from "../plain-object.js";
import { readTranscript } from "../record/run-folder-reader.js";

/** What of the model's words the report shows at most. */
export const SUMMARY_MAX_CHARS = 2_000;

/** The answer of one query of the iteration: its declaration's summary and its final text. */
interface Said {
  readonly summary?: string;
  readonly text?: string;
}

/**
 * The iteration's summary: the completion prompt's declaration, the query's declaration, the
 * decision file's `summary`, else the query's final text; undefined when none is on record.
 */
export async function readIterationSummary(
  runDir: string,
  iteration: number,
  fileSummary?: string,
): Promise<string | undefined> {
  const [completion, query] = await Promise.all([
    readSaid(runDir, iteration, "completion"),
    readSaid(runDir, iteration),
  ]);
  const said = completion.summary ?? query.summary ?? fileSummary ?? query.text;
  return said === undefined ? undefined : shorten(said.trim());
}

async function readSaid(runDir: string, iteration: number, label?: string): Promise<Said> {
  try {
    const transcript = await readTranscript(runDir, iteration, label);
    if (transcript === undefined) return {};
    const turn = turnFromTranscript(JSON.parse(transcript.text), runDir);
    const output = turn.structuredOutput;
    const summary = isPlainObject(output) ? textOf(output.summary) : undefined;
    const text = textOf(turn.text);
    return {
      ...(summary === undefined ? {} : { summary }),
      ...(text === undefined ? {} : { text }),
    };
  } catch {
    return {}; // a damaged transcript says nothing
  }
}

function textOf(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function shorten(text: string): string {
  return text.length <= SUMMARY_MAX_CHARS ? text : `${text.slice(0, SUMMARY_MAX_CHARS - 1)}…`;
}
