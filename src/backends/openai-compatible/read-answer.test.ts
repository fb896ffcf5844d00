import { describe, expect, it } from "vitest";
import { CONTRACT_SCHEMA } from "../../../test/backend-contract.js";
import { makeStructuredOutputValidator } from "../claude-sdk/structured-output.js";
import { checkAnswer } from "./read-answer.js";

const validate = makeStructuredOutputValidator();
const DONE = { status: "completed", summary: "fixed" };

describe("checkAnswer", () => {
  it("takes the whole text as JSON, or else the last JSON object in it", () => {
    const fenced = `Here it is:\n\`\`\`json\n${JSON.stringify(DONE)}\n\`\`\``;
    for (const text of [JSON.stringify(DONE), fenced]) {
      expect(checkAnswer({ via: "text", text }, CONTRACT_SCHEMA, validate)).toEqual({
        ok: true,
        value: DONE,
      });
    }
  });

  it("drops the nulls the strict schema stands absent optional properties in with", () => {
    const schema = { ...CONTRACT_SCHEMA, required: ["status"] };
    const text = JSON.stringify({ status: "completed", summary: null });
    expect(checkAnswer({ via: "text", text }, schema, validate)).toEqual({
      ok: true,
      value: { status: "completed" },
    });
  });

  it("says why an answer is not one: no JSON, the wrong shape, or none at all", () => {
    expect(
      checkAnswer({ via: "text", text: "all done!" }, CONTRACT_SCHEMA, validate),
    ).toMatchObject({ ok: false, problems: [expect.stringContaining("not JSON")] });
    expect(
      checkAnswer({ via: "tool", input: { status: "done" } }, CONTRACT_SCHEMA, validate),
    ).toMatchObject({
      ok: false,
      problems: expect.arrayContaining(["/status must be equal to one of the allowed values"]),
    });
    expect(checkAnswer({ via: "none" }, CONTRACT_SCHEMA, validate)).toMatchObject({ ok: false });
  });
});
