import type { FileChange, TreeChanges } from "../ports/files.js";

/** Characters of each diff the review prompt gets at most. */
export const REVIEW_DIFF_LIMIT = 40_000;

/** What one completion condition ran and found, for the review. */
export interface CheckEvidence {
  readonly validator: string;
  readonly command?: string;
  readonly valid: boolean;
  /** Tests the validator's run listed at the baseline and now, when it is a test runner's. */
  readonly testsAtBaseline?: number;
  readonly testsNow?: number;
}

/** What the review is shown (docs/completion.md#closure-review). */
export interface ReviewEvidenceInput {
  readonly baselineCommit: string;
  readonly changes: TreeChanges;
  /** Paths (relative to the tree) that define how the checks run: the protected paths. */
  readonly checkFiles: readonly string[];
  readonly checks: readonly CheckEvidence[];
  readonly declaration: { readonly status?: string; readonly summary?: string };
}

const TEST_FILE_PATTERNS: readonly RegExp[] = [
  /(^|\/)[^/]*\.(test|spec)\.[^/]+$/,
  /(^|\/)(test|tests|__tests__)\//,
  /(^|\/)test_[^/]*\.py$/,
  /(^|\/)[^/]*_test\.(py|go)$/,
];

/** Whether a path holds tests by its name (docs/completion.md#closure-review). */
export function isTestPath(path: string): boolean {
  return TEST_FILE_PATTERNS.some((pattern) => pattern.test(path));
}

/** The review's template variables: `baseline`, `changes`, `checks`, `declaration`. */
export function reviewEvidenceVariables(input: ReviewEvidenceInput): Record<string, unknown> {
  const checkFiles = new Set(input.checkFiles);
  const isTestOrCheck = (file: FileChange) => isTestPath(file.path) || checkFiles.has(file.path);
  return {
    baseline: { commit: input.baselineCommit },
    changes: {
      stat: input.changes.stat,
      tests: boundDiffs(input.changes.files.filter(isTestOrCheck)),
      code: boundDiffs(input.changes.files.filter((file) => !isTestOrCheck(file))),
    },
    checks: renderChecks(input.checks),
    declaration: renderDeclaration(input.declaration),
  };
}

/** The files' diffs, whole files first, cut at `limit` characters with a note of what was cut. */
export function boundDiffs(files: readonly FileChange[], limit = REVIEW_DIFF_LIMIT): string {
  const parts: string[] = [];
  let used = 0;
  const left: string[] = [];
  for (const file of files) {
    const room = limit - used;
    if (room <= 0) {
      left.push(file.path);
      continue;
    }
    const part = file.diff.length <= room ? file.diff : file.diff.slice(0, room);
    if (part.length < file.diff.length) {
      parts.push(
        `${part}\n[… the diff of ${file.path} is cut here: ${file.diff.length - part.length} more characters]`,
      );
    } else parts.push(part);
    used += part.length;
  }
  if (left.length > 0) parts.push(`[… not shown, over ${limit} characters: ${left.join(", ")}]`);
  return parts.join("\n");
}

function renderChecks(checks: readonly CheckEvidence[]): string {
  return checks
    .map((check) => {
      const ran = check.command === undefined ? "" : ` ran \`${check.command}\``;
      const tests =
        check.testsNow === undefined && check.testsAtBaseline === undefined
          ? ""
          : `; tests at the baseline: ${check.testsAtBaseline ?? "unknown"}, now: ${check.testsNow ?? "unknown"}`;
      return `- ${check.validator}${ran}: ${check.valid ? "passed" : "failed"}${tests}`;
    })
    .join("\n");
}

function renderDeclaration(declaration: ReviewEvidenceInput["declaration"]): string {
  return [
    `status: ${declaration.status ?? "completed"}`,
    `summary: ${declaration.summary ?? ""}`,
  ].join("\n");
}
