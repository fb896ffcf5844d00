import { describe, expect, it } from "vitest";
import { decideDelivery } from "./webhook-delivery.js";

const WATCHED = { owner: "acme", name: "widgets", label: "ready" };

function issues(action: string, extra: Record<string, unknown> = {}) {
  return {
    action,
    issue: { number: 5, state: "open", labels: [{ name: "Ready" }] },
    repository: { full_name: "Acme/Widgets" },
    ...extra,
  };
}

describe("docs/queue.md#serve which deliveries queue an issue", () => {
  it("queues an issue that got the label, or was opened or reopened with it", () => {
    expect(
      decideDelivery("issues", issues("labeled", { label: { name: "READY" } }), WATCHED),
    ).toEqual({ kind: "enqueue", issue: 5, why: "acme/widgets#5 labelled ready" });
    for (const action of ["opened", "reopened"]) {
      expect(decideDelivery("issues", issues(action), WATCHED)).toMatchObject({
        kind: "enqueue",
        issue: 5,
      });
    }
  });

  it("ignores another label, event, action, repository, and a closed issue, saying why", () => {
    const cases: [string | undefined, unknown, string][] = [
      ["issues", issues("labeled", { label: { name: "later" } }), "labelled later, not ready"],
      ["push", {}, "event push is not issues"],
      [undefined, {}, "event (none) is not issues"],
      ["ping", {}, "ping"],
      ["issues", issues("edited"), "issues edited of acme/widgets#5"],
      ["issues", issues("unlabeled", { label: { name: "ready" } }), "issues unlabeled"],
      [
        "issues",
        { ...issues("labeled"), repository: { full_name: "acme/other" } },
        "is not acme/widgets",
      ],
      [
        "issues",
        {
          ...issues("labeled", { label: { name: "ready" } }),
          issue: { number: 5, state: "closed" },
        },
        "is not open",
      ],
      [
        "issues",
        { ...issues("opened"), issue: { number: 5, state: "open", labels: [] } },
        "without label",
      ],
      ["issues", { ...issues("labeled"), issue: { state: "open" } }, "without an issue number"],
    ];
    for (const [event, payload, why] of cases) {
      const decision = decideDelivery(event, payload, WATCHED);
      expect(decision.kind, why).toBe("ignore");
      expect(decision.why).toContain(why);
    }
  });
});
