/**
 * Writes the corpus of recorded runs (docs/replay.md#corpus) into
 * test/fixtures/recorded-runs/. Run with `npx tsx scripts/record-corpus.ts [name...]`.
 */
import { resolve } from "node:path";
import { CORPUS_DIR, recordCorpus } from "../test/support/recorded-runs.js";

const written = await recordCorpus(resolve(CORPUS_DIR), process.argv.slice(2));
process.stdout.write(`recorded: ${written.join(", ")}\n`);
