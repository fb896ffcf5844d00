import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  commit,
  git,
  makeUpstreamClone,
  type UpstreamClone,
} from "../../test/support/upstream-clone.js";
import { deliverBranch, deliverToBase, readRemoteBranch } from "./deliver-commit.js";

let repos: UpstreamClone;
let clone: string;

beforeEach(async () => {
  repos = await makeUpstreamClone("closer-deliver-");
  ({ clone } = repos);
});
afterEach(() => repos.cleanup());

describe("docs/queue.md#delivery: the verified commit reaches origin once", () => {
  it("the base moves forward to the commit once; a second attempt finds it there", async () => {
    const fix = await commit(clone, "fix.txt");
    expect(await deliverToBase(clone, { commit: fix, base: "main" })).toBe("pushed");
    expect(await deliverToBase(clone, { commit: fix, base: "main" })).toBe("already-there");
    expect(await readRemoteBranch(clone, "main")).toBe(fix);
  });

  it("a base that moved past what the commit grew from is refused, naming both", async () => {
    const start = await git(clone, "rev-parse", "HEAD");
    const other = await commit(clone, "other.txt");
    await git(clone, "push", "--quiet", "origin", "main");
    await git(clone, "checkout", "--quiet", "-b", "closer/issue-1", start);
    const fix = await commit(clone, "fix.txt");
    const error = await deliverToBase(clone, { commit: fix, base: "main" }).catch((e: Error) => e);
    expect(String(error)).toContain(`moved on to ${other}`);
    expect(await readRemoteBranch(clone, "main")).toBe(other);
  });

  it("the task branch is set to the commit, in place of an earlier attempt's, and not pushed twice", async () => {
    const start = await git(clone, "rev-parse", "HEAD");
    await git(clone, "checkout", "--quiet", "-b", "closer/issue-2");
    const earlier = await commit(clone, "fix.txt");
    const target = { commit: earlier, branch: "closer/issue-2" };
    expect(await deliverBranch(clone, target)).toBe("pushed");
    expect(await deliverBranch(clone, target)).toBe("already-there");
    // A new attempt verified another commit from the same start.
    await git(clone, "checkout", "--quiet", "--detach", start);
    const later = await commit(clone, "fix-again.txt");
    expect(await deliverBranch(clone, { commit: later, branch: "closer/issue-2" })).toBe("pushed");
    expect(await readRemoteBranch(clone, "closer/issue-2")).toBe(later);
  });
});
