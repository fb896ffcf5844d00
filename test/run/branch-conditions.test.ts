import { describe, expect, it } from "vitest";
import { commitMessage } from "../../src/run/index.js";

describe("commitMessage", () => {
  it("uses the summary's first line as the subject, names the issue, and keeps the whole summary", () => {
    const message = commitMessage("Fixed the parser\nIt no longer drops the last token.", 12);
    const [subject, blank, ...rest] = message.split("\n");
    expect(subject).toBe("Fixed the parser (#12)");
    expect(blank).toBe("");
    expect(rest.join("\n")).toContain("It no longer drops the last token.");
  });

  it("cuts a long first line to 72 characters", () => {
    const subject = commitMessage("x".repeat(200), 7).split("\n")[0] ?? "";
    expect(subject.length).toBeLessThanOrEqual(72);
    expect(subject.endsWith("... (#7)")).toBe(true);
  });

  it("has a message when the model gave no summary", () => {
    expect(commitMessage(undefined)).toBe("Commit the agent's remaining changes");
  });
});
