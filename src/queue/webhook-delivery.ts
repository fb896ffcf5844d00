/** What `closer serve` does with one verified delivery of GitHub's webhook (docs/queue.md#serve). */
export type DeliveryDecision =
  | { readonly kind: "enqueue"; readonly issue: number; readonly why: string }
  | { readonly kind: "ignore"; readonly why: string };

/** The repository and label a server queues issues of. */
export interface WatchedLabel {
  readonly owner: string;
  readonly name: string;
  readonly label: string;
}

interface IssuesPayload {
  readonly action?: unknown;
  readonly label?: { readonly name?: unknown } | null;
  readonly issue?: {
    readonly number?: unknown;
    readonly state?: unknown;
    readonly labels?: readonly ({ readonly name?: unknown } | null)[];
  } | null;
  readonly repository?: { readonly full_name?: unknown } | null;
}

const same = (a: unknown, b: string) =>
  typeof a === "string" && a.toLowerCase() === b.toLowerCase();

/**
 * An `issues` delivery queues its issue when the issue got the label
 * (`labeled` with that label), or was opened or reopened with the label on
 * it; anything else — another event, action, label or repository, a closed
 * issue — is ignored, with the reason.
 */
export function decideDelivery(
  event: string | undefined,
  payload: unknown,
  watched: WatchedLabel,
): DeliveryDecision {
  if (event === "ping") return { kind: "ignore", why: "ping: the webhook reaches closer serve" };
  if (event !== "issues")
    return { kind: "ignore", why: `event ${event ?? "(none)"} is not issues` };
  const body = (payload ?? {}) as IssuesPayload;
  const repository = `${watched.owner}/${watched.name}`;
  if (!same(body.repository?.full_name, repository)) {
    return {
      kind: "ignore",
      why: `repository ${String(body.repository?.full_name)} is not ${repository}`,
    };
  }
  const issue = body.issue?.number;
  const action = String(body.action);
  if (typeof issue !== "number" || !Number.isSafeInteger(issue) || issue < 1) {
    return { kind: "ignore", why: `issues ${action} without an issue number` };
  }
  const subject = `${repository}#${issue}`;
  if (body.issue?.state !== "open") return { kind: "ignore", why: `${subject} is not open` };
  if (action === "labeled") {
    return same(body.label?.name, watched.label)
      ? { kind: "enqueue", issue, why: `${subject} labelled ${watched.label}` }
      : {
          kind: "ignore",
          why: `${subject} labelled ${String(body.label?.name)}, not ${watched.label}`,
        };
  }
  if (action === "opened" || action === "reopened") {
    const labelled = (body.issue?.labels ?? []).some((label) => same(label?.name, watched.label));
    return labelled
      ? { kind: "enqueue", issue, why: `${subject} ${action} with label ${watched.label}` }
      : { kind: "ignore", why: `${subject} ${action} without label ${watched.label}` };
  }
  return { kind: "ignore", why: `issues ${action} of ${subject}` };
}
