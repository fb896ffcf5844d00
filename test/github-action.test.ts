import { readFile } from "node:fs/promises";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = new URL("../", import.meta.url);

async function validatorOf(schemaFile: string) {
  const schema = JSON.parse(
    await readFile(new URL(`test/fixtures/schemastore/${schemaFile}`, ROOT), "utf8"),
  ) as object;
  // SchemaStore's schemas use formats and keywords of their own: checked loosely, every error listed.
  return new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
}

async function actionMetadata(): Promise<Record<string, unknown>> {
  return parse(await readFile(new URL("action.yml", ROOT), "utf8")) as Record<string, unknown>;
}

/** The workflow file docs/github-action.md#workflow shows. */
async function documentedWorkflow(): Promise<unknown> {
  const text = await readFile(new URL("docs/github-action.md", ROOT), "utf8");
  const block = /<a id="workflow"><\/a>[\s\S]*?```yaml\n([\s\S]*?)```/.exec(text)?.[1];
  expect(block, "docs/github-action.md#workflow has a yaml block").toBeDefined();
  return parse(block ?? "");
}

describe("docs/github-action.md the GitHub Action", () => {
  it("action.yml validates against the action metadata schema", async () => {
    const validate = await validatorOf("github-action.json");
    const valid = validate(await actionMetadata());
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it("is a composite action on Node 22 that installs closer, runs the issue, writes the report and uploads the run folder", async () => {
    const action = await actionMetadata();
    const runs = action.runs as { using: string; steps: Record<string, unknown>[] };
    expect(runs.using).toBe("composite");
    const node = runs.steps.find((step) => String(step.uses).startsWith("actions/setup-node@"));
    expect((node?.with as { "node-version"?: unknown } | undefined)?.["node-version"]).toBe(22);
    const scripts = runs.steps.map((step) => String(step.run ?? "")).join("\n");
    expect(scripts).toContain(
      'npm install --global --no-audit --no-fund "closer-agent@$CLOSER_VERSION"',
    );
    expect(scripts).toContain('closer run "$CLOSER_AGENT" --issue "$CLOSER_ISSUE"');
    expect(scripts).toContain("closer report");
    const upload = runs.steps.find((step) =>
      String(step.uses).startsWith("actions/upload-artifact@"),
    );
    expect(upload?.if).toContain("always()");
  });

  it("the schema refuses an action without runs, so the check above can fail", async () => {
    const validate = await validatorOf("github-action.json");
    const { runs: _runs, ...withoutRuns } = await actionMetadata();
    expect(validate(withoutRuns)).toBe(false);
  });

  it("the workflow in docs/github-action.md validates against the workflow schema and triggers on labelled issues and by hand", async () => {
    const validate = await validatorOf("github-workflow.json");
    const workflow = await documentedWorkflow();
    const valid = validate(workflow);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
    expect(workflow).toMatchObject({
      on: { issues: { types: ["labeled"] }, workflow_dispatch: {} },
    });
  });
});
