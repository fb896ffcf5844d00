// Makes README's "What closer guarantees" table from the fault suite
// (test/faults/*.test.ts): one row per `fault({ what, does }, …)`, grouped by
// the file's first `describe`. `--check` exits 1 when README differs.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FAULTS_DIR = "test/faults";
const README = "README.md";
const START = "<!-- guarantees:start -->";
const END = "<!-- guarantees:end -->";
const STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
const FAULT_CALL = new RegExp(
  String.raw`fault\(\s*\{\s*what:\s*${STRING},\s*does:\s*${STRING}`,
  "g",
);
const AREA = new RegExp(String.raw`describe\(\s*${STRING}`);

const unquote = (text) => JSON.parse(`"${text}"`);
const cell = (text) => text.replaceAll("|", "\\|");

export function readFaults(dir = FAULTS_DIR) {
  const areas = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".test.ts"))
    .sort()) {
    const source = readFileSync(join(dir, file), "utf8");
    const faults = [...source.matchAll(FAULT_CALL)].map((match) => ({
      what: unquote(match[1]),
      does: unquote(match[2]),
    }));
    if (faults.length === 0) continue;
    const area = source.match(AREA);
    areas.push({ file, area: area ? unquote(area[1]) : file, faults });
  }
  return areas;
}

export function makeTable(areas) {
  const count = areas.reduce((sum, area) => sum + area.faults.length, 0);
  const lines = [
    `Each row is a test of the fault suite (\`test/faults/\`, ${count} faults); this table is made from it by \`npm run guarantees\`.`,
    "",
    "| Area | What goes wrong | What closer does |",
    "| --- | --- | --- |",
  ];
  for (const { area, faults } of areas) {
    for (const fault of faults)
      lines.push(`| ${cell(area)} | ${cell(fault.what)} | ${cell(fault.does)} |`);
  }
  return lines.join("\n");
}

function withTable(readme, table) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) throw new Error(`${README} lacks the ${START} … ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;
}

const isMain = process.argv[1]?.endsWith("guarantees.mjs");
if (isMain) {
  const readme = readFileSync(README, "utf8");
  const updated = withTable(readme, makeTable(readFaults()));
  if (process.argv.includes("--check")) {
    if (updated !== readme) {
      console.error(`${README}'s guarantees table is out of date: run npm run guarantees`);
      process.exit(1);
    }
  } else if (updated !== readme) {
    writeFileSync(README, updated);
    console.log(`${README}: guarantees table updated`);
  }
}
